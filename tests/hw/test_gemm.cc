// vta_gemm against the fsim: the same SRAM contents, random GEMM instructions (loops, factors, resets,
// accumulation chains on one tile that need forwarding), then every accumulator word, the OUT buffer
// and the micro-op count compared. Also: one micro-op per cycle, and index errors stop cleanly. HwGemm's
// model computes the dot products with the tsim's DPI function (-DVTA_GEMM_DPI); the random
// instructions also run on the model of the text synthesis reads (-DSYNTHESIS: the RTL's own loop
// nest). HwGemmDot checks that function against plain C++, in the vectorized case and the generic one.

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "Vvta_gemm_harness.h"
#include "Vvta_gemm_harness_synth.h"
#include "compute_check.h"
#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/int8_dot.h"
#include "vta/tsim/rtl_gemm.h"

namespace vta::test {
namespace {

template <class Model>
class GemmTest : public ComputeUnitTest<Model, 21> {
 protected:
  using ComputeUnitTest<Model, 21>::h_;
  using ComputeUnitTest<Model, 21>::cfg_;
  using ComputeUnitTest<Model, 21>::isa_;
  using ComputeUnitTest<Model, 21>::fsim_;
  using ComputeUnitTest<Model, 21>::rng_;
  using ComputeUnitTest<Model, 21>::uops_;

  void SetUp() override {
    h_->start_i = 0, h_->uop_we_i = 0, h_->inp_we_i = 0, h_->wgt_we_i = 0, h_->acc_we_i = 0, h_->tb_re_i = 0;
    h_.reset();
  }

  // Fills the first n elements of each SRAM with random data, in the harness and in the fsim; with
  // `extremes`, the int8 elements are mostly -128 (the largest products, which the synthesis text's
  // packed pairs must hold without overflow) and otherwise 127, -1 or 1.
  void fill(int n_uops, int n_inp, int n_wgt, int n_acc, bool extremes = false) {
    const int inp_elem = cfg_.inp_elem_bytes(), wgt_elem = cfg_.wgt_elem_bytes(), acc_elem = cfg_.acc_elem_bytes();
    DevBuf ub(n_uops * 4), ib(n_inp * inp_elem), wb(n_wgt * wgt_elem), ab(n_acc * acc_elem);
    uops_.clear();
    for (int i = 0; i < n_uops; ++i) {
      // Small index ranges make repeated tiles (forwarding) common.
      uops_.push_back({uint32_t(rng_() % 64), uint32_t(rng_() % 200), uint32_t(rng_() % 100)});
      ub.as<uint32_t>()[i] = isa_.encode(uops_.back());
    }
    fill_random({ib.as<int8_t>(), ib.size()}, rng_);
    fill_random({wb.as<int8_t>(), wb.size()}, rng_);
    if (extremes) {
      const int8_t values[] = {-128, -128, -128, -128, -128, 127, -1, 1};
      for (size_t i = 0; i < ib.size(); ++i) ib.as<int8_t>()[i] = values[rng_() % 8];
      for (size_t i = 0; i < wb.size(); ++i) wb.as<int8_t>()[i] = values[rng_() % 8];
    }
    for (int i = 0; i < n_acc * acc_elem / 4; ++i) ab.as<int32_t>()[i] = int32_t(rng_() % 20001) - 10000;
    write_uops(h_, ub.as<uint32_t>(), n_uops);
    for (int i = 0; i < n_inp; ++i) {
      h_->inp_we_i = 1, h_->inp_waddr_i = i;
      put_bytes(h_->inp_wdata_i, ib.data() + i * inp_elem, inp_elem);
      h_.tick();
    }
    h_->inp_we_i = 0;
    for (int i = 0; i < n_wgt; ++i) {
      h_->wgt_we_i = 1, h_->wgt_waddr_i = i;
      put_bytes(h_->wgt_wdata_i, wb.data() + i * wgt_elem, wgt_elem);
      h_.tick();
    }
    h_->wgt_we_i = 0;
    write_acc(h_, ab.data(), n_acc, acc_elem);
    Program p(cfg_);
    p.load(MemId::kUop, 0, ub.base(4), 1, n_uops, n_uops)
        .load(MemId::kInp, 0, ib.base(inp_elem), 1, n_inp, n_inp)
        .load(MemId::kWgt, 0, wb.base(wgt_elem), 1, n_wgt, n_wgt)
        .load(MemId::kAcc, 0, ab.base(acc_elem), 1, n_acc, n_acc)
        .finish();
    ASSERT_EQ(p.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
  }

  std::pair<int, int> run_rtl(const GemmInsn& g) {
    return run_loop_insn(h_, cfg_,
                         {g.reset, g.uop_bgn, g.uop_end, g.iter_out, g.iter_in, g.dst_factor_out, g.dst_factor_in,
                          g.src_factor_out, g.src_factor_in, g.wgt_factor_out, g.wgt_factor_in, 0, 0, 0});
  }

  GemmInsn random_insn() {
    GemmInsn g;
    g.uop_bgn = rng_() % (uops_.size() - 8);
    g.uop_end = g.uop_bgn + 1 + rng_() % 8;
    g.iter_out = 1 + rng_() % 4, g.iter_in = 1 + rng_() % 6;
    g.dst_factor_out = rng_() % 9, g.dst_factor_in = rng_() % 3 == 0 ? 0 : rng_() % 5;  // 0: accumulation chain
    g.src_factor_out = rng_() % 9, g.src_factor_in = rng_() % 9;
    g.wgt_factor_out = rng_() % 9, g.wgt_factor_in = rng_() % 9;
    g.reset = rng_() % 6 == 0;
    return g;
  }

  void compare_buffers(const std::set<uint32_t>& written) { expect_acc_and_out_match(h_, cfg_, *fsim_, written); }

  // 80 random instructions against the fsim, then every buffer word they wrote.
  void random_instructions_match_the_fsim(bool extremes = false) {
    fill(512, 512, 256, 512, extremes);
    std::set<uint32_t> written;
    for (int n = 0; n < 80; ++n) {
      const GemmInsn g = random_insn();
      const uint64_t before = fsim_->stats().gemm_counter;
      Program p(cfg_);
      p.gemm(g).finish();
      ASSERT_EQ(p.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
      const auto [cycles, done] = run_rtl(g);
      ASSERT_FALSE(h_->error_o) << "instruction " << n;
      ASSERT_EQ(uint64_t(done), fsim_->stats().gemm_counter - before) << "instruction " << n;
      add_written(written, g, uops_);
    }
    compare_buffers(written);
  }
};

// The dot products as the RTL's loop nest states them, element by element.
std::vector<uint32_t> reference_dots(int batch, int block_in, int block_out, int inp_width, int wgt_width,
                                     const std::vector<uint32_t>& inp, const std::vector<uint32_t>& wgt) {
  auto element = [](const std::vector<uint32_t>& v, int index, int width) {
    int64_t value = 0;
    for (int bit = 0; bit < width; ++bit) {
      const int at = index * width + bit;
      value |= int64_t((v[at / 32] >> (at % 32)) & 1) << bit;
    }
    if (value >> (width - 1)) value -= int64_t(1) << width;  // two's complement
    return value;
  };
  std::vector<uint32_t> dots(size_t(batch * block_out));
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < block_out; ++o) {
      uint64_t sum = 0;  // modulo 2^64, then 2^32
      for (int c = 0; c < block_in; ++c) {
        sum += uint64_t(element(inp, b * block_in + c, inp_width) * element(wgt, o * block_in + c, wgt_width));
      }
      dots[size_t(b) * size_t(block_out) + size_t(o)] = uint32_t(sum);
    }
  }
  return dots;
}

TEST(HwGemmDot, MatchesTheLoopNestForEveryShape) {
  std::mt19937 rng(7);
  struct Shape {
    int batch, block_in, block_out, inp_width, wgt_width;
  };
  // int8 rows of 16, 32 and 64 (the vectorized cases; 6 and 3 rows of weights leave some out of the
  // groups of four), then rows of 8 int8, 16-bit and 32-bit elements, and widths that straddle words
  // (the generic case), and the 4-bit combinations of the configurations (docs/ISA.md)
  for (const Shape s : {Shape{1, 16, 16, 8, 8}, Shape{2, 32, 8, 8, 8}, Shape{1, 64, 6, 8, 8}, Shape{2, 16, 3, 8, 8},
                        Shape{1, 8, 4, 8, 8}, Shape{2, 16, 4, 16, 16}, Shape{1, 4, 2, 32, 32}, Shape{3, 5, 3, 7, 12},
                        Shape{1, 16, 16, 4, 4}, Shape{2, 16, 8, 8, 4}, Shape{1, 32, 16, 4, 8}}) {
    SCOPED_TRACE(::testing::Message() << s.batch << "x" << s.block_in << "x" << s.block_out << " " << s.inp_width << "/"
                                      << s.wgt_width << " bits");
    for (int round = 0; round < 20; ++round) {
      std::vector<uint32_t> inp(size_t((s.batch * s.block_in * s.inp_width + 31) / 32 + 1));
      std::vector<uint32_t> wgt(size_t((s.block_out * s.block_in * s.wgt_width + 31) / 32 + 1));
      for (auto& w : inp) w = rng();
      for (auto& w : wgt) w = rng();
      if (round == 0) {  // every int8 element -128 (the largest products), every wider one -1
        for (auto& w : inp) w = s.inp_width == 8 ? 0x80808080u : 0xffffffffu;
        for (auto& w : wgt) w = s.wgt_width == 8 ? 0x80808080u : 0xffffffffu;
      }
      std::vector<uint32_t> dots(size_t(s.batch * s.block_out), 0xdeadbeef);
      vta_gemm_dot(s.batch, s.block_in, s.block_out, s.inp_width, s.wgt_width, inp.data(), wgt.data(), dots.data());
      ASSERT_EQ(dots, reference_dots(s.batch, s.block_in, s.block_out, s.inp_width, s.wgt_width, inp, wgt))
          << "round " << round;
    }
  }
}

// Both forms of the int8 sums the DPI function chooses between (vta/driver/int8_dot.h: SSE2, and AVX2
// where the CPU has it; vta_gemm_dot above runs only the one this CPU takes), against the loop nest:
// rows of 16, 32 and 64 elements, outputs in blocks of eight and not (the rows left after the blocks).
TEST(HwGemmDot, BothFormsOfTheInt8SumsMatchTheLoopNest) {
  std::mt19937 rng(11);
  struct Shape {
    int batch, block_in, block_out;
  };
  for (const Shape s : {Shape{1, 16, 16}, Shape{2, 32, 8}, Shape{1, 64, 6}, Shape{2, 16, 3}, Shape{1, 16, 27},
                        Shape{3, 32, 32}, Shape{1, 64, 16}, Shape{1, 8, 8}}) {
    SCOPED_TRACE(::testing::Message() << s.batch << "x" << s.block_in << "x" << s.block_out);
    for (int round = 0; round < 20; ++round) {
      std::vector<uint32_t> inp(size_t(s.batch * s.block_in / 4)), wgt(size_t(s.block_out * s.block_in / 4));
      for (auto& w : inp) w = round == 0 ? 0x80808080u : uint32_t(rng());
      for (auto& w : wgt) w = round == 0 ? 0x80808080u : uint32_t(rng());
      const auto want = reference_dots(s.batch, s.block_in, s.block_out, 8, 8, inp, wgt);
      const auto* x = reinterpret_cast<const int8_t*>(inp.data());
      const auto* w = reinterpret_cast<const int8_t*>(wgt.data());
      std::vector<uint32_t> got(want.size(), 0xdeadbeef);
      int8_dots(s.batch, s.block_in, s.block_out, x, w, got.data());
      ASSERT_EQ(got, want) << "int8_dots, round " << round;
      if (!cpu_has_avx2()) continue;
      std::fill(got.begin(), got.end(), 0xdeadbeef);
      int8_dots_avx2(s.batch, s.block_in, s.block_out, x, w, got.data());
      ASSERT_EQ(got, want) << "int8_dots_avx2, round " << round;
    }
  }
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2: int8_dots checked, int8_dots_avx2 not";
}

class HwGemm : public GemmTest<Vvta_gemm_harness> {};
class HwGemmSynthesisText : public GemmTest<Vvta_gemm_harness_synth> {};

TEST_F(HwGemm, RandomInstructionsMatchTheFsim) { random_instructions_match_the_fsim(); }
TEST_F(HwGemmSynthesisText, RandomInstructionsMatchTheFsim) { random_instructions_match_the_fsim(); }
TEST_F(HwGemmSynthesisText, ExtremeProductsMatchTheFsim) { random_instructions_match_the_fsim(true); }

TEST_F(HwGemm, OneMicroOpPerCycle) {
  fill(64, 64, 64, 64);
  GemmInsn g;
  g.uop_bgn = 0, g.uop_end = 50, g.iter_out = 8, g.iter_in = 10;
  const auto [cycles, done] = run_rtl(g);
  EXPECT_EQ(done, 50 * 8 * 10);
  // (plus the pipeline filling: the loop, the micro-op, the operands, the products, their sums, the
  // accumulation: vta_gemm.sv)
  EXPECT_LE(cycles, 50 * 8 * 10 + 6) << "steady state must be one micro-op per cycle";
  Program p(cfg_);
  p.gemm(g).finish();
  ASSERT_EQ(p.run(*fsim_), RunStatus::kOk);
  std::set<uint32_t> written;
  for (uint32_t k = 0; k < 50; ++k) written.insert(uops_[k].dst);
  compare_buffers(written);
}

TEST_F(HwGemm, IndexPastTheBufferStopsWithAnError) {
  fill(64, 64, 64, 64);
  GemmInsn bad;
  bad.uop_bgn = 0, bad.uop_end = 4, bad.iter_out = 2, bad.iter_in = 1, bad.dst_factor_out = 2047;
  const auto [cycles, done] = run_rtl(bad);
  EXPECT_TRUE(h_->error_o);
  EXPECT_LT(cycles, 20) << "the instruction stops instead of running on";
  EXPECT_LE(done, 4);
  GemmInsn good;
  good.uop_bgn = 0, good.uop_end = 4, good.iter_out = 1, good.iter_in = 1;
  run_rtl(good);
  EXPECT_FALSE(h_->error_o) << "the next start clears the error";
}

}  // namespace
}  // namespace vta::test
