// vta_compute against the fsim: one compute program (LOAD UOP, LOAD ACC with padding, LOAD ACC_8BIT,
// random GEMM and ALU instructions, FINISH) runs on both; the RTL's output SRAM must hold the low
// bytes of the fsim's accumulator everywhere, and the micro-op and byte counts must agree.

#include <gtest/gtest.h>

#include <random>

#include "Vvta_compute.h"
#include "mem_model.h"
#include "sim_harness.h"
#include "test_util.h"
#include "vta/driver/build_config.h"

namespace vta::test {
namespace {

TEST(HwCompute, ProgramMatchesTheFsim) {
  const Config& cfg = build_config();
  const Isa isa(cfg);
  const int inp_elem = cfg.inp_elem_bytes(), wgt_elem = cfg.wgt_elem_bytes(), acc_elem = cfg.acc_elem_bytes(),
            lanes = cfg.batch() * cfg.block_out();
  std::mt19937 rng(41);
  // One device buffer holds everything the loads read: uops, acc tiles, int8 acc tiles, inp, wgt.
  DevBuf data(1 << 18);
  const size_t uop_off = 0, acc_off = 8192, acc8_off = 8192 + 64 * 64, inp_off = 65536, wgt_off = 131072;
  const int n_uops = 256;
  for (int i = 0; i < n_uops; ++i) {
    data.as<uint32_t>()[uop_off / 4 + i] =
        isa.encode(Uop{uint32_t(rng() % 48), uint32_t(rng() % 48), uint32_t(rng() % 48)});
  }
  for (size_t i = acc_off; i < acc8_off; i += 4)
    *reinterpret_cast<int32_t*>(data.data() + i) = int32_t(rng() % 2001) - 1000;
  for (size_t i = acc8_off; i < inp_off; ++i) data.data()[i] = uint8_t(rng());
  for (size_t i = inp_off; i < data.size(); ++i) data.data()[i] = uint8_t(rng());
  const std::vector<uint8_t> mirror(data.data(), data.data() + data.size());

  std::vector<RawInsn> compute;  // the instructions both run
  auto load = [&](MemId t, uint32_t sram, size_t off, uint32_t unit, uint32_t n, uint32_t pad) {
    MemInsn m;
    m.memory_type = uint8_t(t), m.sram_base = sram, m.dram_base = uint32_t((data.phys() + off) / unit);
    m.y_size = 1, m.x_size = n, m.x_stride = n, m.x_pad_0 = pad, m.y_pad_1 = pad;
    compute.push_back(isa.encode(m));
  };
  load(MemId::kUop, 0, uop_off, 4, n_uops, 0);
  load(MemId::kAcc, 0, acc_off, uint32_t(acc_elem), 60, 1);  // 61 x 2 block with pads
  load(MemId::kAcc8Bit, 200, acc8_off, uint32_t(lanes), 16, 0);
  for (int n = 0; n < 60; ++n) {
    const uint32_t bgn = rng() % 240, end = bgn + 1 + rng() % 8, io = 1 + rng() % 3, ii = 1 + rng() % 4;
    if (rng() % 2) {
      GemmInsn g = gemm_insn(bgn, end, io, ii);
      g.reset = rng() % 6 == 0;
      g.dst_factor_out = rng() % 4, g.dst_factor_in = rng() % 3, g.src_factor_out = rng() % 4;
      g.src_factor_in = rng() % 4, g.wgt_factor_out = rng() % 4, g.wgt_factor_in = rng() % 4;
      compute.push_back(isa.encode(g));
    } else {
      AluInsn a = alu_insn(static_cast<AluOp>(rng() % 5), bgn, end, rng() % 2, int32_t(rng() % 41) - 20, io, ii);
      a.dst_factor_out = rng() % 4, a.dst_factor_in = rng() % 3, a.src_factor_out = rng() % 4,
      a.src_factor_in = rng() % 3;
      compute.push_back(isa.encode(a));
    }
  }
  GemmInsn fin;
  fin.opcode = uint8_t(Opcode::kFinish);
  compute.push_back(isa.encode(fin));

  // The fsim also needs the input and weight SRAMs, which the RTL test supplies through its ports.
  auto fsim = make_test_fsim(cfg);
  Program p(cfg);
  p.load(MemId::kInp, 0, uint32_t((data.phys() + inp_off) / inp_elem), 1, 128, 128)
      .load(MemId::kWgt, 0, uint32_t((data.phys() + wgt_off) / wgt_elem), 1, 64, 64);
  for (const RawInsn& r : compute) p.raw(r);
  ASSERT_EQ(p.run(*fsim), RunStatus::kOk) << fsim->last_error();

  Harness<Vvta_compute> h;
  h->insn_valid_i = 0, h->l2g_ready_i = 1, h->s2g_ready_i = 1;
  set_sram_rd(h->out_rd_i, kAccAddrBits, false, 0);
  h.reset();
  ReadClientModel uop_mem(mirror, data.phys(), rng), acc_mem(mirror, data.phys(), rng);
  size_t next = 0;
  uint64_t gemm_uops = 0, alu_uops = 0, uop_bytes = 0, acc_bytes = 0;
  bool finished = false, inp_pending = false, wgt_pending = false;
  uint32_t inp_addr = 0, wgt_addr = 0;
  int cycles = 0;
  for (; !finished && cycles < 500000; ++cycles) {
    const bool stalls = (cycles / 200) % 2 == 1;
    h->insn_valid_i = next < compute.size();
    if (next < compute.size()) {
      put_insn(h->insn_i, compute[next]);
      h->insn_legal_i = 1;  // the program is valid (fetch's verdict on it: HwFetch)
    }
    if (inp_pending) {
      for (int w = 0; w < inp_elem / 4; ++w)
        std::memcpy(&h->inp_rdata_i[w], &mirror[inp_off + size_t(inp_addr) * inp_elem + 4 * w], 4);
    }
    if (wgt_pending) {
      for (int w = 0; w < wgt_elem / 4; ++w)
        std::memcpy(&h->wgt_rdata_i[w], &mirror[wgt_off + size_t(wgt_addr) * wgt_elem + 4 * w], 4);
    }
    uop_mem.drive(h->uop_rsp_i, stalls);
    acc_mem.drive(h->acc_rsp_i, stalls);
    h.eval();
    ASSERT_FALSE(h->error_o) << "instruction " << next;
    uop_mem.observe(h->uop_req_o, h->uop_rsp_i);
    acc_mem.observe(h->acc_req_o, h->acc_rsp_i);
    const SramRead inp_rd = SramRead::of(h->inp_rd_o, kInpAddrBits), wgt_rd = SramRead::of(h->wgt_rd_o, kWgtAddrBits);
    inp_pending = inp_rd.re, inp_addr = inp_rd.addr;
    wgt_pending = wgt_rd.re, wgt_addr = wgt_rd.addr;
    gemm_uops += h->gemm_uop_o, alu_uops += h->alu_uop_o;
    if (h->stat_valid_o) uop_bytes += h->stat_uop_bytes_o, acc_bytes += h->stat_acc_bytes_o;
    finished = h->finish_o;
    if (h->insn_valid_i && h->insn_ready_o) ++next;
    h.tick();
  }
  ASSERT_TRUE(finished) << "FINISH was not reached; stopped at instruction " << next;
  EXPECT_EQ(gemm_uops, fsim->stats().gemm_counter);
  EXPECT_EQ(alu_uops, fsim->stats().alu_counter);
  EXPECT_EQ(uop_bytes, fsim->stats().uop_load_nbytes);
  EXPECT_EQ(acc_bytes, fsim->stats().acc_load_nbytes);
  for (uint32_t e = 0; e < cfg.acc_depth(); ++e) {
    set_sram_rd(h->out_rd_i, kAccAddrBits, true, e);
    h.tick();
    h.eval();
    for (int l = 0; l < lanes; ++l) {
      ASSERT_EQ(get_bits(h->out_rdata_o, 8 * l, 8), uint8_t(fsim->acc_sram()[size_t(e) * lanes + l]))
          << "out element " << e << " lane " << l;
    }
  }
  std::printf("vta_compute: %zu instructions in %d cycles\n", compute.size(), cycles);
}

}  // namespace
}  // namespace vta::test
