// vta_store: random STORE programs (token flags, no-ops) with scarce tokens, memory back-pressure and
// delayed acknowledgements. Checks the DRAM image against the spec's strided layout, token discipline,
// that every store->compute push comes after all of its writes were acknowledged, the statistics, and
// that an instruction fetch found illegal stops the stage.

#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "Vvta_store.h"
#include "mem_port.h"
#include "sim_harness.h"
#include "unit_test.h"
#include "vta/driver/build_config.h"
#include "vta/driver/isa.h"

namespace vta::test {
namespace {

constexpr uint64_t kBase = 0x200000;

class HwStore : public UnitTest<Vvta_store> {
 protected:
  HwStore() : UnitTest(29) {}
  std::vector<uint8_t> out_sram_;

  void SetUp() override {
    out_sram_.resize(size_t(cfg_.out_depth()) * cfg_.out_elem_bytes());
    for (auto& b : out_sram_) b = uint8_t(rng_());
    h_->insn_valid_i = 0, h_->g2s_ready_i = 0;
    set_wr_rsp(h_->mem_rsp_i, false, false, false);
    h_.reset();
  }
  void set_out(uint32_t addr) {
    const int elem = cfg_.out_elem_bytes();
    for (int w = 0; w < elem / 4; ++w) {
      const uint8_t* p = out_sram_.data() + size_t(addr) * elem + 4 * w;
      h_->out_rdata_i[w] = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    }
  }
};

TEST_F(HwStore, RandomProgramWithTokensAndAcknowledgements) {
  const int elem = cfg_.out_elem_bytes(), bus = 8;
  std::vector<uint8_t> dram(1 << 16, 0xee), want = dram;
  std::vector<RawInsn> prog;
  uint64_t want_pops = 0, want_pushes = 0, want_bytes = 0;
  for (int n = 0; n < 40; ++n) {
    MemInsn m;
    m.opcode = uint8_t(Opcode::kStore), m.memory_type = uint8_t(MemId::kOut);
    m.deps.pop_prev = rng_() % 2, m.deps.push_prev = rng_() % 2;
    m.x_size = rng_() % 6 == 0 ? 0 : 1 + rng_() % 5;
    m.y_size = 1 + rng_() % 3, m.x_stride = m.x_size + rng_() % 3;
    m.sram_base = rng_() % 200;
    m.dram_base = uint32_t(kBase / uint64_t(elem)) + rng_() % 200;
    if (m.x_size == 0) m.memory_type = 0;  // the runtime's store no-op
    prog.push_back(isa_.encode(m));
    want_pops += m.deps.pop_prev, want_pushes += m.deps.push_prev;
    want_bytes += uint64_t(m.x_size) * m.y_size * uint64_t(elem);
    for (uint32_t r = 0; r < (m.x_size ? m.y_size : 0); ++r)
      for (uint32_t c = 0; c < m.x_size; ++c)
        for (int b = 0; b < elem; ++b) {
          want[(uint64_t(m.dram_base) + uint64_t(r) * m.x_stride + c) * elem + b - kBase] =
              out_sram_[(size_t(m.sram_base) + r * m.x_size + c) * elem + b];
        }
  }
  struct Cmd {
    uint64_t next, end;
  };
  std::deque<Cmd> cmds;
  std::deque<int> acks;
  uint64_t tokens = 0, pops = 0, pushes = 0, bytes = 0, waited = 0;
  bool read_pending = false;
  uint32_t read_addr = 0;
  size_t next = 0;
  int cycles = 0;
  for (; (next < prog.size() || h_->busy_o) && cycles < 200000; ++cycles) {
    const bool stalls = (cycles / 300) % 2 == 1;
    if (rng_() % 40 == 0) ++tokens;
    h_->g2s_ready_i = tokens > 0;
    h_->insn_valid_i = next < prog.size() && rng_() % 4 != 0;
    if (next < prog.size()) set_insn(prog[next]);
    if (read_pending) set_out(read_addr);
    const bool cmd_ready = !stalls || rng_() % 3 != 0;
    const bool data_ready = !stalls || rng_() % 3 != 0;
    const bool ack = !acks.empty() && acks.front() <= 0;
    set_wr_rsp(h_->mem_rsp_i, cmd_ready, data_ready, ack);
    h_.eval();
    ASSERT_FALSE(h_->error_o) << "instruction " << next;
    const WrReq req = WrReq::of(h_->mem_req_o);
    if (ack) acks.pop_front();
    for (auto& a : acks) --a;
    const SramRead out_rd = SramRead::of(h_->out_rd_o, kAccAddrBits);
    read_pending = out_rd.re, read_addr = out_rd.addr;
    if (req.cmd_valid && cmd_ready) {
      const uint64_t a = req.cmd.addr, n = req.cmd.bytes;
      cmds.push_back({a / bus * bus, (a + n + bus - 1) / bus * bus});
    }
    if (req.data_valid && data_ready) {
      ASSERT_FALSE(cmds.empty());
      Cmd& c = cmds.front();
      for (int b = 0; b < bus; ++b) {
        if ((req.strb >> b) & 1) dram[c.next + uint64_t(b) - kBase] = uint8_t(req.data >> (8 * b));
      }
      c.next += uint64_t(bus);
      if (c.next == c.end) cmds.pop_front(), acks.push_back(stalls ? int(rng_() % 6) : 0);
    }
    if (h_->g2s_pop_o) {
      ASSERT_GT(tokens, 0u) << "popped a token that was not there";
      --tokens, ++pops;
    }
    if (h_->s2g_push_o) {
      ++pushes;
      ASSERT_TRUE(cmds.empty() && acks.empty()) << "pushed before all writes were acknowledged";
    }
    if (h_->stat_valid_o) bytes += h_->stat_out_bytes_o;
    waited += h_->insn_valid_i && !h_->insn_ready_o && tokens == 0;
    if (h_->insn_valid_i && h_->insn_ready_o) ++next;
    h_.tick();
  }
  ASSERT_EQ(next, prog.size());
  EXPECT_FALSE(h_->busy_o);
  EXPECT_GT(waited, 20u);
  EXPECT_EQ(pops, want_pops);
  EXPECT_EQ(pushes, want_pushes);
  EXPECT_EQ(bytes, want_bytes);
  EXPECT_TRUE(dram == want) << "DRAM image differs";
}

// An instruction fetch found illegal (here a STORE of ACC) stops the stage before it stores anything.
TEST_F(HwStore, AnIllegalInstructionStopsTheStage) {
  MemInsn m;
  m.opcode = uint8_t(Opcode::kStore), m.memory_type = uint8_t(MemId::kAcc);
  m.x_size = 1, m.y_size = 1, m.x_stride = 1;
  set_insn(isa_.encode(m), /*legal=*/false);
  h_->insn_valid_i = 1;
  h_.eval();
  h_.tick();
  h_->insn_valid_i = 0;
  h_.eval();
  EXPECT_TRUE(h_->error_o);
  EXPECT_FALSE(h_->busy_o) << "nothing is stored";
}

}  // namespace
}  // namespace vta::test
