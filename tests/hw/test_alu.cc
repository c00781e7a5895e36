// vta_alu against the fsim: every opcode with immediates (including the shift extremes) and vector
// operands, loops and factors over a small set of tiles so that consecutive micro-ops read what the
// previous ones wrote; then every accumulator word, the OUT buffer and the micro-op count compared.
// The same for the two-slot stage's ALU (MulCycles 2: a MUL through a stage more), MUL-heavy.

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "Vvta_alu_harness.h"
#include "Vvta_alu_mul2_harness.h"
#include "compute_check.h"
#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/timeline.h"

namespace vta::test {
namespace {

template <class Model>
class AluUnitTest : public ComputeUnitTest<Model, 31> {
 protected:
  using Base = ComputeUnitTest<Model, 31>;
  using Base::cfg_, Base::fsim_, Base::h_, Base::isa_, Base::rng_, Base::uops_;

  void SetUp() override {
    h_->start_i = 0, h_->uop_we_i = 0, h_->acc_we_i = 0, h_->tb_re_i = 0;
    h_.reset();
  }

  void fill(int n_uops, int n_acc, int index_range) {
    const int acc_elem = cfg_.acc_elem_bytes();
    DevBuf ub(n_uops * 4), ab(n_acc * acc_elem);
    const int32_t special[] = {
        0, 1, -1, 5, -7, 31, 32, -32, 40, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()};
    uops_.clear();
    for (int i = 0; i < n_uops; ++i) {
      uops_.push_back({uint32_t(rng_() % index_range), uint32_t(rng_() % index_range), 0});
      ub.as<uint32_t>()[i] = isa_.encode(uops_.back());
    }
    for (int i = 0; i < n_acc * acc_elem / 4; ++i) {
      ab.as<int32_t>()[i] = rng_() % 3 == 0 ? special[rng_() % 11] : int32_t(rng_() % 401) - 200;
    }
    write_uops(h_, ub.as<uint32_t>(), n_uops);
    write_acc(h_, ab.data(), n_acc, acc_elem);
    Program p(cfg_);
    p.load(MemId::kUop, 0, ub.base(4), 1, n_uops, n_uops)
        .load(MemId::kAcc, 0, ab.base(acc_elem), 1, n_acc, n_acc)
        .finish();
    ASSERT_EQ(p.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
  }

  // The cycles of the same loop with an immediate operand (one a micro-op), run on the fsim too so
  // that both keep the same accumulator (MAX with the smallest immediate).
  std::pair<int, int> run_rtl_imm_twin(AluInsn a) {
    a.use_imm = true, a.alu_opcode = uint8_t(AluOp::kMax), a.imm = -32768;
    Program p(cfg_);
    p.alu(a).finish();
    EXPECT_EQ(p.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
    return run_rtl(a);
  }

  std::pair<int, int> run_rtl(const AluInsn& a) {
    return run_loop_insn(h_, cfg_,
                         {0, a.uop_bgn, a.uop_end, a.iter_out, a.iter_in, a.dst_factor_out, a.dst_factor_in,
                          a.src_factor_out, a.src_factor_in, 0, 0, a.alu_opcode, a.use_imm, uint16_t(a.imm)});
  }

  // `count` random instructions (opcodes, operands, loops, factors, held sources), one in `mul_every`
  // a MUL (0: any opcode alike), each against the fsim: the micro-op count, and every word written now and then.
  void random_instructions(int count, int mul_every) {
    fill(256, 256, 24);
    std::set<uint32_t> written;
    const int32_t imms[] = {-32768, -40, -33, -32, -31, -9, -1, 0, 1, 3, 8, 30, 31, 32, 33, 127, 32767};
    for (int n = 0; n < count; ++n) {
      AluInsn a;
      a.alu_opcode = uint8_t(mul_every > 0 && rng_() % mul_every == 0 ? uint8_t(AluOp::kMul) : rng_() % 5);
      a.use_imm = rng_() % 2;
      a.imm = imms[rng_() % 17];
      a.uop_bgn = rng_() % 240;
      a.uop_end = a.uop_bgn + 1 + rng_() % 8;
      a.iter_out = 1 + rng_() % 3, a.iter_in = 1 + rng_() % 5;
      a.dst_factor_out = rng_() % 5, a.dst_factor_in = rng_() % 3, a.src_factor_out = rng_() % 5;
      a.src_factor_in = rng_() % 3;
      if (rng_() % 3 == 0) {  // a held source (one micro-op, the source still in a row), often overwritten
        a.uop_end = a.uop_bgn + 1, a.src_factor_in = 0, a.iter_in = 2 + rng_() % 8, a.dst_factor_in = 1;
      }
      const uint64_t before = fsim_->stats().alu_counter;
      Program p(cfg_);
      p.alu(a).finish();
      ASSERT_EQ(p.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
      const auto [cycles, done] = run_rtl(a);
      ASSERT_FALSE(h_->error_o) << "instruction " << n;
      ASSERT_EQ(uint64_t(done), fsim_->stats().alu_counter - before) << "instruction " << n;
      add_written(written, a, uops_);
      if (n % 30 == 29) expect_acc_and_out_match(h_, cfg_, *fsim_, written);
    }
  }
};

class HwAlu : public AluUnitTest<Vvta_alu_harness> {};
class HwAluTwoCycleMul : public AluUnitTest<Vvta_alu_mul2_harness> {};

TEST_F(HwAlu, RandomInstructionsMatchTheFsim) { random_instructions(150, 0); }

TEST_F(HwAlu, ThroughputOnePerCycleWithImmediateTwoWithVector) {
  fill(64, 64, 64);
  AluInsn a;
  a.alu_opcode = uint8_t(AluOp::kAdd), a.use_imm = true, a.imm = 3;
  a.uop_bgn = 0, a.uop_end = 40, a.iter_out = 5, a.iter_in = 5;
  auto [cycles, done] = run_rtl(a);
  EXPECT_EQ(done, 1000);
  EXPECT_LE(cycles, 1000 + 5);
  a.use_imm = false;
  std::tie(cycles, done) = run_rtl(a);
  EXPECT_EQ(done, 1000);
  EXPECT_LE(cycles, 2000 + 5);
}

// A source held across micro-ops (a bias added along rows: one micro-op, the source's inner factor
// 0) takes one cycle a micro-op, and a micro-op that writes the held source makes the next read it
// again: each instruction against the fsim, and its cycles.
TEST_F(HwAlu, AHeldSourceServesUntilItIsWritten) {
  fill(8, 256, 8);
  struct Case {
    uint32_t dst, src, iter_out, iter_in, dst_factor_out, dst_factor_in, src_factor_out, src_factor_in;
    int reads;           // source reads the RTL should make
    bool writes_source;  // (which the estimate's alu_cycles does not count)
  };
  const Case cases[] = {
      {0, 200, 4, 40, 40, 1, 1, 0, 4, false},  // the bias: a read per row
      {0, 0, 1, 10, 0, 1, 0, 0, 2, true},      // the first micro-op writes its source: the second reads it again
      {0, 5, 1, 12, 0, 1, 0, 0, 2, true},      // the sixth writes it: the seventh reads it again
      {0, 7, 3, 5, 9, 1, 0, 1, 15, false},     // the source moves every micro-op: no reuse
      {0, 20, 3, 4, 4, 1, 0, 0, 1, false},     // one source for every row: one read
  };
  std::set<uint32_t> written;
  for (const Case& c : cases) {
    uops_[0] = {c.dst, c.src, 0};
    DevBuf ub(4);
    ub.as<uint32_t>()[0] = isa_.encode(uops_[0]);
    write_uops(h_, ub.as<uint32_t>(), 1);
    Program load(cfg_);
    load.load(MemId::kUop, 0, ub.base(4), 1, 1, 1).finish();
    ASSERT_EQ(load.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
    AluInsn a;
    a.alu_opcode = uint8_t(AluOp::kAdd), a.use_imm = false;
    a.uop_bgn = 0, a.uop_end = 1, a.iter_out = c.iter_out, a.iter_in = c.iter_in;
    a.dst_factor_out = c.dst_factor_out, a.dst_factor_in = c.dst_factor_in;
    a.src_factor_out = c.src_factor_out, a.src_factor_in = c.src_factor_in;
    Program p(cfg_);
    p.alu(a).finish();
    ASSERT_EQ(p.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
    const int steps = int(c.iter_out * c.iter_in);
    const auto [cycles, done] = run_rtl(a);
    ASSERT_FALSE(h_->error_o);
    EXPECT_EQ(done, steps);
    // one cycle a micro-op, one more a read of the source, and the pipeline's fixed latency
    const auto [base_cycles, base_done] = run_rtl_imm_twin(a);
    EXPECT_EQ(cycles - base_cycles, c.reads) << "dst " << c.dst << " src " << c.src;
    if (!c.writes_source) {
      EXPECT_EQ(alu_cycles(a), uint64_t(steps + c.reads)) << "the estimate's rule";
    }
    (void)base_done;
    for (uint32_t i = 0; i < c.iter_out; ++i)
      for (uint32_t j = 0; j < c.iter_in; ++j) written.insert(c.dst + i * c.dst_factor_out + j * c.dst_factor_in);
    expect_acc_and_out_match(h_, cfg_, *fsim_, written);
  }
}

TEST_F(HwAlu, IndexPastTheBufferStopsWithAnError) {
  fill(8, 8, 8);
  AluInsn a;
  a.alu_opcode = uint8_t(AluOp::kMax), a.use_imm = false;
  a.uop_bgn = 0, a.uop_end = 2, a.iter_out = 1, a.iter_in = 3, a.src_factor_in = 2040;
  const auto [cycles, done] = run_rtl(a);
  EXPECT_TRUE(h_->error_o);
  EXPECT_LT(cycles, 30);
  (void)done;
}

// The two-slot stage's ALU: a MUL's operands registered before the product (S3, then S3b); what the
// forwarding gives the next micro-op (destination or source just written by a MUL) must still be the
// fsim's.
TEST_F(HwAluTwoCycleMul, RandomInstructionsMatchTheFsim) { random_instructions(200, 2); }

// The two-slot stage's MUL keeps the rate of every other operation (one cycle an iteration with an
// immediate, two with a vector operand: the estimate's alu_cycles) and adds a cycle of latency (S3b).
TEST_F(HwAluTwoCycleMul, AMulKeepsTheRateAndAddsACycleOfLatency) {
  fill(64, 64, 64);
  for (const bool imm : {true, false}) {
    AluInsn a;
    a.alu_opcode = uint8_t(AluOp::kMul), a.use_imm = imm, a.imm = 3;
    a.uop_bgn = 0, a.uop_end = 8, a.iter_out = 5, a.iter_in = 5;
    const auto [cycles, done] = run_rtl(a);
    EXPECT_EQ(done, 200);
    const auto [base_cycles, base_done] = run_rtl_imm_twin(a);
    EXPECT_EQ(base_done, 200);
    EXPECT_EQ(uint64_t(cycles - base_cycles), alu_cycles(a) - 200 + 1) << (imm ? "immediate" : "vector");
  }
}

// Each MUL's operand the MUL before it has just written: a destination (read while that MUL is in S3b:
// its product forwarded into the operand registers), a source (arriving while that MUL is in S3b), with
// and without a held source; the words against the fsim.
TEST_F(HwAluTwoCycleMul, AMulReadsWhatTheMulBeforeItWrote) {
  fill(8, 64, 8);
  const std::vector<std::vector<Uop>> kernels = {
      {{1, 0, 0}, {2, 1, 0}, {3, 2, 0}, {4, 3, 0}, {5, 4, 0}},  // each source the previous destination
      {{9, 20, 0}, {9, 21, 0}, {9, 22, 0}, {9, 20, 0}},         // one destination multiplied again and again
      {{12, 11, 0}, {13, 12, 0}, {13, 13, 0}, {14, 13, 0}},     // both, and a micro-op its own source
  };
  std::set<uint32_t> written;
  for (const auto& kernel : kernels) {
    for (const bool imm : {false, true}) {
      DevBuf ub(4 * kernel.size());
      for (size_t i = 0; i < kernel.size(); ++i) {
        ub.as<uint32_t>()[i] = isa_.encode(kernel[i]);
        written.insert(kernel[i].dst);
      }
      write_uops(h_, ub.as<uint32_t>(), int(kernel.size()));
      Program load(cfg_);
      load.load(MemId::kUop, 0, ub.base(4), 1, uint32_t(kernel.size()), uint32_t(kernel.size())).finish();
      ASSERT_EQ(load.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
      AluInsn a;
      a.alu_opcode = uint8_t(AluOp::kMul), a.use_imm = imm, a.imm = -3;
      a.uop_bgn = 0, a.uop_end = uint32_t(kernel.size()), a.iter_out = 2, a.iter_in = 1;
      Program p(cfg_);
      p.alu(a).finish();
      ASSERT_EQ(p.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
      const auto [cycles, done] = run_rtl(a);
      ASSERT_FALSE(h_->error_o);
      EXPECT_EQ(done, int(2 * kernel.size()));
      (void)cycles;
      expect_acc_and_out_match(h_, cfg_, *fsim_, written);
    }
  }
}

}  // namespace
}  // namespace vta::test
