// Every class of invalid program, on every registered backend (the fsim always; the tsim when this
// executable links it; later backends by registering): the run ends with the same status and error
// class, a diagnostic that names the problem and the instruction (index, module, disassembly), the
// statistics of before the run and empty token queues; nothing aborts or hangs, and the device works
// afterwards. A new backend is done when this suite passes on it.

#include <gtest/gtest.h>

#include "test_util.h"
#include "vta/driver/build_config.h"

namespace vta {
namespace {

using test::DevBuf;
using test::Program;

// The tests name buffer depths of the default configuration (2048 inputs, 1024 weights, ...).
bool default_sized(const Config& c) {
  const Config d = Config::default_config();
  return c.inp_depth() == d.inp_depth() && c.wgt_depth() == d.wgt_depth() && c.acc_depth() == d.acc_depth() &&
         c.uop_depth() == d.uop_depth() && c.inp_elem_bytes() == d.inp_elem_bytes() &&
         c.wgt_elem_bytes() == d.wgt_elem_bytes() && c.acc_elem_bytes() == d.acc_elem_bytes();
}

class BackendErrors : public ::testing::TestWithParam<std::string> {
 protected:
  // The fsim runs any configuration; other backends (the tsim, remote devices) run the one they were
  // built for.
  const Config cfg_ = GetParam() == "fsim" ? Config::default_config() : build_config();
  std::unique_ptr<Device> dev_;
  DevBuf data_{64 * 1024};
  DevBuf uops_{4 * 64};

  void SetUp() override {
    if (!default_sized(cfg_)) GTEST_SKIP() << "written for the default configuration's buffer depths";
    dev_ = make_device(GetParam(), cfg_);
  }

  // Runs `p`, checks the status, the class, each of `needles` in the diagnostic, and that the run
  // counted nothing and left empty queues.
  void expect_failure(const Program& p, RunStatus status, ErrorKind kind, std::initializer_list<std::string> needles) {
    const Stats before = dev_->stats();
    EXPECT_EQ(p.run(*dev_), status);
    EXPECT_EQ(dev_->last_error_kind(), kind) << dev_->last_error();
    const std::string& err = dev_->last_error();
    EXPECT_EQ(err.rfind("vta " + std::string(dev_->target()) + ": ", 0), 0u) << err;
    for (const auto& n : needles) EXPECT_NE(err.find(n), std::string::npos) << "missing '" << n << "' in:\n" << err;
    EXPECT_NE(err.find("tokens: l2g="), std::string::npos) << err;
    EXPECT_EQ(err.back(), '\n');
    EXPECT_EQ(dev_->tokens(), TokenCounts{}) << "a failed run resets the token queues";
    EXPECT_TRUE(dev_->stats().counters_equal(before)) << "a failed run counts nothing: " << dev_->stats().to_json();
  }
  uint32_t base(int unit) const { return data_.base(unit); }
};

TEST_P(BackendErrors, IllegalOpcode) {
  Program bad(cfg_);
  bad.raw(RawInsn{5, 0}).finish();
  expect_failure(bad, RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"error at instruction 0 (compute) [invalid_instruction]: illegal opcode 5", "0: ILLEGAL opcode=5"});
}

TEST_P(BackendErrors, IllegalMemoryTypes) {
  Program load_out(cfg_);
  load_out.load(MemId::kOut, 0, base(16), 1, 1, 1).finish();
  expect_failure(load_out, RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"illegal memory type 4 for LOAD", "LOAD OUT"});
  Program load_7(cfg_);
  load_7.raw(load_7.isa().encode(MemInsn{0, {}, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0})).finish();
  expect_failure(load_7, RunStatus::kError, ErrorKind::kInvalidInstruction, {"illegal memory type 7 for LOAD"});
  Program store_acc(cfg_);
  store_acc.raw(store_acc.isa().encode(MemInsn{1, {}, 3, 0, base(16), 1, 1, 1, 0, 0, 0, 0})).finish();
  expect_failure(store_acc, RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"illegal memory type 3 for STORE", "(store)"});
}

TEST_P(BackendErrors, StoreWithPadding) {
  Program p(cfg_);
  p.raw(p.isa().encode(MemInsn{1, {}, 4, 0, base(16), 1, 1, 1, 0, 0, 1, 0})).finish();
  expect_failure(p, RunStatus::kError, ErrorKind::kInvalidInstruction, {"STORE with padding"});
}

TEST_P(BackendErrors, SramRangesBeyondDepth) {
  Program inp(cfg_);
  inp.load(MemId::kInp, 2040, base(16), 2, 4, 4, {}, 0, 0, 0, 1).finish();  // 2 rows of 5 from 2040
  expect_failure(inp, RunStatus::kError, ErrorKind::kSramRange,
                 {"LOAD INP writes SRAM elements [2040, 2050) beyond the buffer depth 2048"});
  Program wgt(cfg_);
  wgt.load(MemId::kWgt, 1024, base(256), 1, 1, 1).finish();
  expect_failure(wgt, RunStatus::kError, ErrorKind::kSramRange, {"beyond the buffer depth 1024"});
  Program uop(cfg_);
  uop.load(MemId::kUop, 8190, base(4), 1, 4, 4).finish();
  expect_failure(uop, RunStatus::kError, ErrorKind::kSramRange, {"LOAD UOP", "depth 8192"});
  Program store(cfg_);
  store.store(2047, base(16), 1, 2, 2).finish();
  expect_failure(store, RunStatus::kError, ErrorKind::kSramRange, {"STORE reads SRAM elements [2047, 2049)"});
}

// Micro-op indices are known only once the micro-ops are loaded: every backend checks them as the
// GEMM or ALU instruction runs (the messages differ; the class and the instruction do not).
TEST_P(BackendErrors, GemmAndAluIndicesBeyondDepth) {
  test::put_uops(Program(cfg_).isa(), uops_, {{2000, 10, 1000}, {5, 2047, 3}});
  auto with_uops = [&](auto&& add) { return test::with_uops(cfg_, uops_, 2, add); };
  GemmInsn g = test::gemm_insn(0, 1, 1, 3);
  g.dst_factor_in = 30;  // 2000 + 2*30 = 2060 >= 2048
  expect_failure(with_uops([&](Program& p) { p.gemm(g); }), RunStatus::kError, ErrorKind::kSramRange, {"GEMM"});
  g = test::gemm_insn(0, 1, 2, 1);
  g.wgt_factor_out = 24;  // 1000 + 24 = 1024
  expect_failure(with_uops([&](Program& p) { p.gemm(g); }), RunStatus::kError, ErrorKind::kSramRange, {"GEMM"});
  AluInsn a = test::alu_insn(AluOp::kAdd, 1, 2, false, 0, 1, 2);
  a.src_factor_in = 1;  // 2047 + 1 = 2048
  expect_failure(with_uops([&](Program& p) { p.alu(a); }), RunStatus::kError, ErrorKind::kSramRange, {"ALU ADD"});
  // With an immediate the source index is not read, so it cannot be out of range.
  a.use_imm = true;
  Program ok = with_uops([&](Program& p) { p.alu(a); });
  EXPECT_EQ(ok.run(*dev_), RunStatus::kOk) << dev_->last_error();
}

TEST_P(BackendErrors, DramAccessOutsideAllocations) {
  Program unmapped(cfg_);
  unmapped.load(MemId::kInp, 0, 0x10, 1, 1, 1).finish();  // physical 0x100: page 0 is never mapped
  expect_failure(unmapped, RunStatus::kError, ErrorKind::kDramRange,
                 {"LOAD reads DRAM [0x100, 0x110)", "outside every allocated buffer"});
  Program past_end(cfg_);
  past_end.load(MemId::kWgt, 0, base(256) + 255, 2, 1, 1).finish();  // last row runs past 64 KiB
  expect_failure(past_end, RunStatus::kError, ErrorKind::kDramRange,
                 {"runs past the end of the buffer", "of 65536 bytes"});
  Program store(cfg_);
  store.store(0, base(16) + 4095, 1, 2, 2).finish();
  expect_failure(store, RunStatus::kError, ErrorKind::kDramRange, {"STORE writes DRAM", "runs past the end"});
}

TEST_P(BackendErrors, ZeroIterationsAndBadMicroOpRanges) {
  Program p1(cfg_);
  p1.gemm(test::gemm_insn(0, 1, 0, 1)).finish();
  expect_failure(p1, RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"zero iteration count (iter_out=0, iter_in=1)"});
  Program p2(cfg_);
  p2.alu(test::alu_insn(AluOp::kMax, 0, 1, true, 0, 1, 0)).finish();
  expect_failure(p2, RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"zero iteration count (iter_out=1, iter_in=0)"});
  Program p3(cfg_);
  p3.gemm(test::gemm_insn(5, 5)).finish();
  expect_failure(p3, RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"empty micro-op range: uop_end 5 must be greater than uop_bgn 5"});
  Program p4(cfg_);
  p4.gemm(test::gemm_insn(8000, 8193)).finish();
  expect_failure(p4, RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"micro-op range [8000, 8193) exceeds the micro-op buffer depth 8192"});
  Program p5(cfg_);
  p5.alu(test::alu_insn(static_cast<AluOp>(6), 0, 1, true, 0)).finish();
  expect_failure(p5, RunStatus::kError, ErrorKind::kInvalidInstruction, {"illegal ALU opcode 6"});
}

TEST_P(BackendErrors, DependencyDeadlock) {
  expect_failure(test::deadlocking_program(cfg_, base(16)), RunStatus::kError, ErrorKind::kDeadlock,
                 {"[deadlock]", "compute: ", "store: "});
}

TEST_P(BackendErrors, StreamShapeErrors) {
  Program no_finish(cfg_);
  no_finish.load(MemId::kInp, 0, base(16), 1, 1, 1);
  expect_failure(no_finish, RunStatus::kError, ErrorKind::kInvalidStream, {"no FINISH instruction"});
  Program after(cfg_);
  after.finish().load(MemId::kInp, 0, base(16), 1, 1, 1);
  expect_failure(after, RunStatus::kError, ErrorKind::kInvalidStream,
                 {"instruction 1", "follows FINISH (instruction 0)"});
  // FINISH would complete while the store still waits for a token nobody pushes.
  Program stranded(cfg_);
  stranded.store(0, base(16), 1, 1, 1, test::pop_prev()).finish();
  expect_failure(stranded, RunStatus::kError, ErrorKind::kUnfinished,
                 {"FINISH completed while 1 instruction(s)", "store: "});
}

TEST_P(BackendErrors, InstructionAddressAndCount) {
  DevBuf insns(64);
  Program p(cfg_);
  p.finish();
  store_insn(insns.data(), p.insns()[0]);
  auto expect = [&](PhysAddr addr, uint32_t count, const char* needle) {
    EXPECT_EQ(dev_->run(addr, count, 0), RunStatus::kError);
    EXPECT_EQ(dev_->last_error_kind(), ErrorKind::kInvalidStream);
    EXPECT_NE(dev_->last_error().find(needle), std::string::npos) << dev_->last_error();
  };
  expect(insns.phys(), 0, "empty instruction stream");
  expect(insns.phys() + 8, 1, "not 16-byte aligned");
  expect(insns.phys(), 5, "runs past the end of its buffer");  // 80 bytes from a 64-byte buffer
  expect(0, 1, "not inside an allocated buffer");
  expect(uint64_t{1} << 40, 1, "not inside an allocated buffer");
  EXPECT_EQ(dev_->run(insns.phys(), 1, 0), RunStatus::kOk);
  EXPECT_EQ(dev_->last_error(), "");
  EXPECT_EQ(dev_->last_error_kind(), ErrorKind::kNone);
}

// Validation happens before anything runs: a malformed instruction late in the stream means nothing
// ran, on every backend.
TEST_P(BackendErrors, NothingExecutesWhenAnyInstructionIsMalformed) {
  std::memset(data_.data(), 0x33, 64);
  Program p(cfg_);
  p.load(MemId::kAcc, 0, base(64), 1, 1, 1).store(0, base(16) + 100, 1, 1, 1).raw(RawInsn{6, 0}).finish();
  expect_failure(p, RunStatus::kError, ErrorKind::kInvalidInstruction, {"illegal opcode 6"});
  EXPECT_EQ(data_.data()[1600], 0) << "the store before the bad instruction must not have run";
}

// The device stays usable after a failure, and counts again from where it was.
TEST_P(BackendErrors, DeviceRecoversAfterFailure) {
  Program bad(cfg_);
  bad.finish(test::pop_prev());
  expect_failure(bad, RunStatus::kError, ErrorKind::kDeadlock, {});
  Program good(cfg_);
  good.load(MemId::kInp, 0, base(16), 1, 1, 1, test::push_next()).finish(test::pop_prev());
  EXPECT_EQ(good.run(*dev_), RunStatus::kOk) << dev_->last_error();
  EXPECT_EQ(dev_->stats().inp_load_nbytes, 16u);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendErrors, ::testing::ValuesIn(backend_names()), test::backend_test_name);

}  // namespace
}  // namespace vta
