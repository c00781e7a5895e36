// vta_load: a random program of LOAD INP / LOAD WGT (token flags, no-ops, padding) with tokens granted
// at random times and memory stalls. Checks token discipline, statistics, the final contents of both
// SRAMs (through the ports the GEMM reads) against the spec's layout, and that an instruction fetch found
// illegal stops the stage.

#include <gtest/gtest.h>

#include <random>

#include "Vvta_load.h"
#include "mem_model.h"
#include "sim_harness.h"
#include "unit_test.h"
#include "vta/driver/build_config.h"
#include "vta/driver/isa.h"

namespace vta::test {
namespace {

constexpr uint64_t kBase = 0x100000;

class HwLoad : public UnitTest<Vvta_load> {
 protected:
  HwLoad() : UnitTest(23) {}
  std::vector<uint8_t> dram_ = std::vector<uint8_t>(1 << 20);
  ReadClientModel inp_mem_{dram_, kBase, rng_}, wgt_mem_{dram_, kBase, rng_};

  void SetUp() override {
    for (auto& b : dram_) b = uint8_t(rng_());
    h_->insn_valid_i = 0, h_->g2l_ready_i = 0;
    set_sram_rd(h_->inp_rd_i, kInpAddrBits, false, 0);
    set_sram_rd(h_->wgt_rd_i, kWgtAddrBits, false, 0);
    h_.reset();
  }

  // One cycle of the environment around the module.
  void cycle(bool stalls) {
    inp_mem_.drive(h_->inp_rsp_i, stalls);
    wgt_mem_.drive(h_->wgt_rsp_i, stalls);
    h_.eval();
    inp_mem_.observe(h_->inp_req_o, h_->inp_rsp_i);
    wgt_mem_.observe(h_->wgt_req_o, h_->wgt_rsp_i);
  }
};

TEST_F(HwLoad, RandomProgramWithTokens) {
  const int inp_elem = cfg_.inp_elem_bytes(), wgt_elem = cfg_.wgt_elem_bytes();
  std::vector<uint8_t> inp_sram(size_t(cfg_.inp_depth()) * inp_elem, 0),
      wgt_sram(size_t(cfg_.wgt_depth()) * wgt_elem, 0);
  std::vector<RawInsn> prog;
  uint64_t want_pops = 0, want_pushes = 0, want_inp = 0, want_wgt = 0;
  for (int n = 0; n < 40; ++n) {
    MemInsn m;
    const bool inp = rng_() % 2;
    const int elem = inp ? inp_elem : wgt_elem;
    m.memory_type = uint8_t(inp ? MemId::kInp : MemId::kWgt);
    m.deps.pop_next = rng_() % 2, m.deps.push_next = rng_() % 2;
    m.x_size = rng_() % 6 == 0 ? 0 : 1 + rng_() % 5;
    m.y_size = rng_() % 4, m.x_stride = m.x_size + rng_() % 3;
    m.x_pad_0 = rng_() % 2, m.x_pad_1 = rng_() % 2, m.y_pad_0 = rng_() % 2, m.y_pad_1 = rng_() % 2;
    m.sram_base = rng_() % 200;
    m.dram_base = uint32_t(kBase / uint64_t(elem)) + rng_() % 100;
    prog.push_back(isa_.encode(m));
    want_pops += m.deps.pop_next, want_pushes += m.deps.push_next;
    if (m.x_size == 0) continue;
    (inp ? want_inp : want_wgt) += uint64_t(m.x_size) * m.y_size * uint64_t(elem);
    auto& sram = inp ? inp_sram : wgt_sram;
    const uint32_t cols = m.x_pad_0 + m.x_size + m.x_pad_1, rows = m.y_pad_0 + m.y_size + m.y_pad_1;
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < cols; ++c) {
        const bool data = r >= m.y_pad_0 && r < m.y_pad_0 + m.y_size && c >= m.x_pad_0 && c < m.x_pad_0 + m.x_size;
        for (int b = 0; b < elem; ++b) {
          const uint64_t src =
              (uint64_t(m.dram_base) + uint64_t(r - m.y_pad_0) * m.x_stride + (c - m.x_pad_0)) * elem + b;
          sram[(size_t(m.sram_base) + r * cols + c) * elem + b] = data ? dram_[src - kBase] : 0;
        }
      }
  }
  uint64_t tokens = 0, pops = 0, pushes = 0, inp_bytes = 0, wgt_bytes = 0, waited = 0;
  size_t next = 0;
  int cycles = 0;
  for (; (next < prog.size() || h_->busy_o) && cycles < 200000; ++cycles) {
    const bool stalls = (cycles / 500) % 2 == 1;
    if (rng_() % 40 == 0) ++tokens;  // scarce: instructions that pop must often wait
    h_->g2l_ready_i = tokens > 0;
    h_->insn_valid_i = next < prog.size() && rng_() % 4 != 0;
    if (next < prog.size()) set_insn(prog[next]);
    cycle(stalls);
    ASSERT_FALSE(h_->error_o) << "instruction " << next;
    if (h_->g2l_pop_o) {
      ASSERT_GT(tokens, 0u) << "popped a token that was not there";
      --tokens, ++pops;
    }
    pushes += h_->l2g_push_o;
    if (h_->stat_valid_o) inp_bytes += h_->stat_inp_bytes_o, wgt_bytes += h_->stat_wgt_bytes_o;
    waited += h_->insn_valid_i && !h_->insn_ready_o && tokens == 0;
    if (h_->insn_valid_i && h_->insn_ready_o) ++next;
    h_.tick();
  }
  ASSERT_EQ(next, prog.size()) << "the program did not run to the end";
  EXPECT_GT(waited, 20u) << "the test must make instructions wait for tokens";
  EXPECT_EQ(pops, want_pops);
  EXPECT_EQ(pushes, want_pushes);
  EXPECT_EQ(inp_bytes, want_inp);
  EXPECT_EQ(wgt_bytes, want_wgt);
  // Read both SRAMs back through the compute-side ports.
  h_->insn_valid_i = 0;
  for (uint32_t e = 0; e < 300; ++e) {
    set_sram_rd(h_->inp_rd_i, kInpAddrBits, true, e);
    set_sram_rd(h_->wgt_rd_i, kWgtAddrBits, e < cfg_.wgt_depth(), e % cfg_.wgt_depth());
    h_.tick();
    h_.eval();
    for (int b = 0; b < inp_elem; ++b) {
      ASSERT_EQ(get_bits(h_->inp_rdata_o, 8 * b, 8), inp_sram[size_t(e) * inp_elem + b]) << "inp element " << e;
    }
    for (int b = 0; b < wgt_elem; ++b) {
      ASSERT_EQ(get_bits(h_->wgt_rdata_o, 8 * b, 8), wgt_sram[size_t(e) * wgt_elem + b]) << "wgt element " << e;
    }
  }
}

// An instruction fetch found illegal (here a block past the weight buffer) stops the stage.
TEST_F(HwLoad, AnIllegalInstructionStopsTheStage) {
  MemInsn m;
  m.memory_type = uint8_t(MemId::kWgt);
  m.sram_base = uint32_t(cfg_.wgt_depth() - 2), m.x_size = 3, m.y_size = 1, m.x_stride = 3;
  m.dram_base = uint32_t(kBase / uint64_t(cfg_.wgt_elem_bytes()));
  set_insn(isa_.encode(m), /*legal=*/false);
  h_->insn_valid_i = 1;
  cycle(false);
  h_.tick();
  h_->insn_valid_i = 0;
  h_.eval();
  EXPECT_TRUE(h_->error_o);
  EXPECT_FALSE(RdReq::of(h_->wgt_req_o).cmd_valid) << "nothing is loaded";
}

}  // namespace
}  // namespace vta::test
