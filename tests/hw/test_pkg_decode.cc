// The RTL package's decoders (vta_pkg) agree with the C++ decoder (vta::Isa) on random instructions:
// the hardware reads exactly the fields the software writes.

#include <gtest/gtest.h>

#include <random>

#include "Vvta_pkg_harness.h"
#include "sim_harness.h"
#include "vta/driver/build_config.h"
#include "vta/driver/isa.h"

namespace vta::test {
namespace {

TEST(HwPkgDecode, AgreesWithTheCppDecoder) {
  const Config& c = build_config();
  const Isa isa(c);
  Harness<Vvta_pkg_harness> h;
  const int la = c.log_acc_depth(), lw = c.log_wgt_depth();
  const int src = std::max(la, c.log_inp_depth());
  const std::vector<int> mem_w = {3, 16, 32, 16, 16, 16, 4, 4, 4, 4};
  const std::vector<int> loop_w = loop_insn_widths(c);
  const std::vector<int> uop_w = {la, src, lw};
  const auto mem_l = packed_lsbs(mem_w), loop_l = packed_lsbs(loop_w), uop_l = packed_lsbs(uop_w);
  std::mt19937_64 rng(5);
  for (int n = 0; n < 5000; ++n) {
    RawInsn raw{rng(), rng()};
    if (n % 3 == 0) raw.lo = (raw.lo & ~uint64_t{7}) | (rng() % 5);  // mostly legal opcodes
    put_insn(h->insn_i, raw);
    const uint32_t uop_word = uint32_t(rng());
    h->uop_i = uop_word;
    h.eval();
    ASSERT_EQ(h->opcode_o, Isa::opcode_of(raw));
    const DepFlags d = Isa::deps_of(raw);
    ASSERT_EQ(h->deps_o, (d.pop_prev << 3) | (d.pop_next << 2) | (d.push_prev << 1) | int(d.push_next));
    ASSERT_EQ(h->stage_o, static_cast<int>(stage_of(raw)));

    const MemInsn m = isa.decode_mem(raw);
    const uint64_t mem_want[] = {m.memory_type, m.sram_base, m.dram_base, m.y_size,  m.x_size,
                                 m.x_stride,    m.y_pad_0,   m.y_pad_1,   m.x_pad_0, m.x_pad_1};
    for (size_t f = 0; f < mem_w.size(); ++f) {
      ASSERT_EQ(get_bits(h->mem_o, mem_l[f], mem_w[f]), mem_want[f]) << "mem field " << f;
    }
    const GemmInsn g = isa.decode_gemm(raw);
    const uint64_t gemm_want[] = {g.reset,
                                  g.uop_bgn,
                                  g.uop_end,
                                  g.iter_out,
                                  g.iter_in,
                                  g.dst_factor_out,
                                  g.dst_factor_in,
                                  g.src_factor_out,
                                  g.src_factor_in,
                                  g.wgt_factor_out,
                                  g.wgt_factor_in,
                                  0,
                                  0,
                                  0};
    for (size_t f = 0; f < loop_w.size(); ++f) {
      ASSERT_EQ(get_bits(h->gemm_o, loop_l[f], loop_w[f]), gemm_want[f]) << "gemm field " << f;
    }
    const AluInsn a = isa.decode_alu(raw);
    const uint64_t alu_want[] = {0,
                                 a.uop_bgn,
                                 a.uop_end,
                                 a.iter_out,
                                 a.iter_in,
                                 a.dst_factor_out,
                                 a.dst_factor_in,
                                 a.src_factor_out,
                                 a.src_factor_in,
                                 0,
                                 0,
                                 a.alu_opcode,
                                 a.use_imm,
                                 uint16_t(a.imm)};
    for (size_t f = 0; f < loop_w.size(); ++f) {
      ASSERT_EQ(get_bits(h->alu_o, loop_l[f], loop_w[f]), alu_want[f]) << "alu field " << f;
    }
    const Uop u = isa.decode_uop(uop_word);
    const uint32_t uop_bits = h->uop_o;
    ASSERT_EQ((uop_bits >> uop_l[0]) & ((1u << uop_w[0]) - 1), u.dst);
    ASSERT_EQ((uop_bits >> uop_l[1]) & ((1u << uop_w[1]) - 1), u.src);
    ASSERT_EQ((uop_bits >> uop_l[2]) & ((1u << uop_w[2]) - 1), u.wgt);
  }
}

}  // namespace
}  // namespace vta::test
