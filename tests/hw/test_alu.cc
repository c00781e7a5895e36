// vta_alu against the fsim: every opcode with immediates (including the shift extremes) and vector
// operands, loops and factors over a small set of tiles so that consecutive micro-ops read what the
// previous ones wrote; then every accumulator word, the OUT buffer and the micro-op count compared.

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "Vvta_alu_harness.h"
#include "compute_check.h"
#include "test_util.h"
#include "vta/driver/build_config.h"

namespace vta::test {
namespace {

class HwAlu : public ComputeUnitTest<Vvta_alu_harness, 31> {
 protected:
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

  std::pair<int, int> run_rtl(const AluInsn& a) {
    return run_loop_insn(h_, cfg_,
                         {0, a.uop_bgn, a.uop_end, a.iter_out, a.iter_in, a.dst_factor_out, a.dst_factor_in,
                          a.src_factor_out, a.src_factor_in, 0, 0, a.alu_opcode, a.use_imm, uint16_t(a.imm)});
  }
};

TEST_F(HwAlu, RandomInstructionsMatchTheFsim) {
  fill(256, 256, 24);
  std::set<uint32_t> written;
  const int32_t imms[] = {-32768, -40, -33, -32, -31, -9, -1, 0, 1, 3, 8, 30, 31, 32, 33, 127, 32767};
  for (int n = 0; n < 150; ++n) {
    AluInsn a;
    a.alu_opcode = uint8_t(rng_() % 5);
    a.use_imm = rng_() % 2;
    a.imm = imms[rng_() % 17];
    a.uop_bgn = rng_() % 240;
    a.uop_end = a.uop_bgn + 1 + rng_() % 8;
    a.iter_out = 1 + rng_() % 3, a.iter_in = 1 + rng_() % 5;
    a.dst_factor_out = rng_() % 5, a.dst_factor_in = rng_() % 3, a.src_factor_out = rng_() % 5;
    a.src_factor_in = rng_() % 3;
    const uint64_t before = fsim_->stats().alu_counter;
    Program p(cfg_);
    p.alu(a).finish();
    ASSERT_EQ(p.run(*fsim_), RunStatus::kOk) << fsim_->last_error();
    const auto [cycles, done] = run_rtl(a);
    ASSERT_FALSE(h_->error_o) << "instruction " << n;
    ASSERT_EQ(uint64_t(done), fsim_->stats().alu_counter - before) << "instruction " << n;
    for (uint32_t i = 0; i < a.iter_out; ++i)
      for (uint32_t j = 0; j < a.iter_in; ++j)
        for (uint32_t k = a.uop_bgn; k < a.uop_end; ++k) {
          written.insert(uops_[k].dst + i * a.dst_factor_out + j * a.dst_factor_in);
        }
    if (n % 30 == 29) expect_acc_and_out_match(h_, cfg_, *fsim_, written);
  }
}

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

}  // namespace
}  // namespace vta::test
