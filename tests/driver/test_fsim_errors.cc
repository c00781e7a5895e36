// Every class of invalid program ends the run with a status and a diagnostic that names the problem,
// the instruction (index and disassembly), its module and the token counts; nothing aborts or hangs.

#include <gtest/gtest.h>

#include "test_util.h"

namespace vta {
namespace {

using test::DevBuf;
using test::Program;

class FsimErrors : public ::testing::Test {
 protected:
  Config cfg = Config::default_config();
  std::unique_ptr<FsimDevice> dev = test::make_test_fsim(cfg);
  DevBuf data{64 * 1024};
  DevBuf uops{4 * 64};

  // Runs `p` and checks the status and that the diagnostic contains each of `needles`.
  void expect_failure(const Program& p, RunStatus status, std::initializer_list<std::string> needles,
                      uint64_t budget = 0) {
    EXPECT_EQ(p.run(*dev, budget), status);
    const std::string& err = dev->last_error();
    for (const auto& n : needles) EXPECT_NE(err.find(n), std::string::npos) << "missing '" << n << "' in:\n" << err;
    EXPECT_NE(err.find("tokens: l2g="), std::string::npos) << err;
    EXPECT_EQ(dev->tokens(), TokenCounts{}) << "a failed run resets the token queues";
  }
  uint32_t base(int unit) const { return data.base(unit); }
};

TEST_F(FsimErrors, IllegalOpcode) {
  Program p(cfg);
  p.finish();
  Program bad(cfg);
  bad.raw(RawInsn{5, 0}).finish();
  expect_failure(bad, RunStatus::kError, {"error at instruction 0", "illegal opcode 5", "0: ILLEGAL opcode=5"});
}

TEST_F(FsimErrors, IllegalMemoryTypes) {
  Program load_out(cfg);
  load_out.load(MemId::kOut, 0, base(16), 1, 1, 1).finish();
  expect_failure(load_out, RunStatus::kError, {"illegal memory type 4 for LOAD", "LOAD OUT"});
  Program load_7(cfg);
  load_7.raw(load_7.isa().encode(MemInsn{0, {}, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0})).finish();
  expect_failure(load_7, RunStatus::kError, {"illegal memory type 7 for LOAD"});
  Program store_acc(cfg);
  store_acc.raw(store_acc.isa().encode(MemInsn{1, {}, 3, 0, base(16), 1, 1, 1, 0, 0, 0, 0})).finish();
  expect_failure(store_acc, RunStatus::kError, {"illegal memory type 3 for STORE", "(store)"});
}

TEST_F(FsimErrors, StoreWithPadding) {
  Program p(cfg);
  p.raw(p.isa().encode(MemInsn{1, {}, 4, 0, base(16), 1, 1, 1, 0, 0, 1, 0})).finish();
  expect_failure(p, RunStatus::kError, {"STORE with padding"});
}

TEST_F(FsimErrors, SramRangesBeyondDepth) {
  Program inp(cfg);
  inp.load(MemId::kInp, 2040, base(16), 2, 4, 4, {}, 0, 0, 0, 1).finish();  // 2 rows of 5 from 2040
  expect_failure(inp, RunStatus::kError, {"LOAD INP writes SRAM elements [2040, 2050) beyond the buffer depth 2048"});
  Program wgt(cfg);
  wgt.load(MemId::kWgt, 1024, base(256), 1, 1, 1).finish();
  expect_failure(wgt, RunStatus::kError, {"beyond the buffer depth 1024"});
  Program uop(cfg);
  uop.load(MemId::kUop, 8190, base(4), 1, 4, 4).finish();
  expect_failure(uop, RunStatus::kError, {"LOAD UOP", "depth 8192"});
  Program store(cfg);
  store.store(2047, base(16), 1, 2, 2).finish();
  expect_failure(store, RunStatus::kError, {"STORE reads SRAM elements [2047, 2049)"});
}

TEST_F(FsimErrors, GemmAndAluIndicesBeyondDepth) {
  test::put_uops(Program(cfg).isa(), uops, {{2000, 10, 1000}, {5, 2047, 3}});
  auto with_uops = [&](auto&& add) {
    Program p(cfg);
    p.load(MemId::kUop, 0, uops.base(4), 1, 2, 2);
    add(p);
    p.finish();
    return p;
  };
  GemmInsn g = test::gemm_insn(0, 1, 1, 3);
  g.dst_factor_in = 30;  // 2000 + 2*30 = 2060 >= 2048
  expect_failure(with_uops([&](Program& p) { p.gemm(g); }), RunStatus::kError,
                 {"SRAM index out of range: the accumulator (dst) index reaches 2060", "GEMM"});
  g = test::gemm_insn(0, 1, 2, 1);
  g.wgt_factor_out = 24;  // 1000 + 24 = 1024
  expect_failure(with_uops([&](Program& p) { p.gemm(g); }), RunStatus::kError,
                 {"weight (wgt) index reaches 1024", "depth is 1024"});
  g = test::gemm_insn(1, 2, 1, 2);
  g.src_factor_in = 1;  // 2047 + 1 = 2048
  expect_failure(with_uops([&](Program& p) { p.gemm(g); }), RunStatus::kError, {"input (src) index reaches 2048"});
  AluInsn a = test::alu_insn(AluOp::kAdd, 1, 2, false, 0, 1, 2);
  a.src_factor_in = 1;
  expect_failure(with_uops([&](Program& p) { p.alu(a); }), RunStatus::kError,
                 {"accumulator (src) index reaches 2048", "ALU ADD"});
  // With an immediate the source index is not read, so it cannot be out of range.
  a.use_imm = true;
  Program ok = with_uops([&](Program& p) { p.alu(a); });
  EXPECT_EQ(ok.run(*dev), RunStatus::kOk) << dev->last_error();
}

TEST_F(FsimErrors, DramAccessOutsideAllocations) {
  Program unmapped(cfg);
  unmapped.load(MemId::kInp, 0, 0x10, 1, 1, 1).finish();  // physical 0x100: page 0 is never mapped
  expect_failure(unmapped, RunStatus::kError, {"LOAD reads DRAM [0x100, 0x110)", "outside every allocated buffer"});
  Program past_end(cfg);
  past_end.load(MemId::kWgt, 0, base(256) + 255, 2, 1, 1).finish();  // last row runs past 64 KiB
  expect_failure(past_end, RunStatus::kError, {"runs past the end of the buffer", "of 65536 bytes"});
  Program store(cfg);
  store.store(0, base(16) + 4095, 1, 2, 2).finish();
  expect_failure(store, RunStatus::kError, {"STORE writes DRAM", "runs past the end"});
}

TEST_F(FsimErrors, ZeroIterationsAndBadMicroOpRanges) {
  Program p1(cfg);
  p1.gemm(test::gemm_insn(0, 1, 0, 1)).finish();
  expect_failure(p1, RunStatus::kError, {"zero iteration count (iter_out=0, iter_in=1)"});
  Program p2(cfg);
  p2.alu(test::alu_insn(AluOp::kMax, 0, 1, true, 0, 1, 0)).finish();
  expect_failure(p2, RunStatus::kError, {"zero iteration count (iter_out=1, iter_in=0)"});
  Program p3(cfg);
  p3.gemm(test::gemm_insn(5, 5)).finish();
  expect_failure(p3, RunStatus::kError, {"empty micro-op range: uop_end 5 must be greater than uop_bgn 5"});
  Program p4(cfg);
  p4.gemm(test::gemm_insn(8000, 8193)).finish();
  expect_failure(p4, RunStatus::kError, {"micro-op range [8000, 8193) exceeds the micro-op buffer depth 8192"});
  Program p5(cfg);
  p5.alu(test::alu_insn(static_cast<AluOp>(6), 0, 1, true, 0)).finish();
  expect_failure(p5, RunStatus::kError, {"illegal ALU opcode 6"});
}

TEST_F(FsimErrors, DependencyDeadlockIsReportedWithModuleStates) {
  Program p(cfg);
  GemmInsn g = test::gemm_insn(0, 1);
  g.deps.pop_prev = true;  // waits for a load that never pushes
  p.load(MemId::kInp, 0, base(16), 1, 1, 1).gemm(g).store(0, base(16), 1, 1, 1, test::pop_prev()).finish();
  expect_failure(p, RunStatus::kError,
                 {"dependency deadlock", "load: idle, executed all 1", "compute: at instruction 1",
                  "waiting for a token on l2g (load -> compute)", "store: at instruction 2",
                  "waiting for a token on g2s (compute -> store)"});
}

TEST_F(FsimErrors, StreamShapeErrors) {
  Program no_finish(cfg);
  no_finish.load(MemId::kInp, 0, base(16), 1, 1, 1);
  expect_failure(no_finish, RunStatus::kError, {"no FINISH instruction"});
  Program after(cfg);
  after.finish().load(MemId::kInp, 0, base(16), 1, 1, 1);
  expect_failure(after, RunStatus::kError, {"instruction 1", "follows FINISH (instruction 0)"});
  // FINISH would complete while the store still waits for a token nobody pushes.
  Program stranded(cfg);
  stranded.store(0, base(16), 1, 1, 1, test::pop_prev()).finish();
  expect_failure(stranded, RunStatus::kError, {"FINISH completed while 1 instruction(s)", "store: at instruction 0"});
}

TEST_F(FsimErrors, InstructionAddressAndCount) {
  DevBuf insns(64);
  Program p(cfg);
  p.finish();
  store_insn(insns.data(), p.insns()[0]);
  EXPECT_EQ(dev->run(insns.phys(), 0, 0), RunStatus::kError);
  EXPECT_NE(dev->last_error().find("empty instruction stream"), std::string::npos);
  EXPECT_EQ(dev->run(insns.phys() + 8, 1, 0), RunStatus::kError);
  EXPECT_NE(dev->last_error().find("not 16-byte aligned"), std::string::npos);
  EXPECT_EQ(dev->run(insns.phys(), 5, 0), RunStatus::kError);  // 80 bytes from a 64-byte buffer
  EXPECT_NE(dev->last_error().find("runs past the end of its buffer"), std::string::npos) << dev->last_error();
  EXPECT_EQ(dev->run(0, 1, 0), RunStatus::kError);
  EXPECT_EQ(dev->run(uint64_t{1} << 40, 1, 0), RunStatus::kError);
  EXPECT_EQ(dev->run(insns.phys(), 1, 0), RunStatus::kOk);
  EXPECT_EQ(dev->last_error(), "");
}

TEST_F(FsimErrors, BudgetOverrunIsATimeout) {
  test::put_uops(Program(cfg).isa(), uops, {{0, 0, 0}});
  Program p(cfg);
  p.load(MemId::kUop, 0, uops.base(4), 1, 1, 1).gemm(test::gemm_insn(0, 1, 1000, 1000)).finish();
  expect_failure(p, RunStatus::kTimeout,
                 {"timeout at instruction 1", "exceeded its budget of 100000 work units", "needs 1000001"}, 100000);
  EXPECT_EQ(dev->stats().gemm_counter, 0u) << "the instruction over budget must not execute";
  EXPECT_EQ(p.run(*dev, 2000000), RunStatus::kOk) << dev->last_error();
}

// Validation happens before execution: a malformed instruction late in the stream means nothing ran.
TEST_F(FsimErrors, NothingExecutesWhenAnyInstructionIsMalformed) {
  std::memset(data.data(), 0x33, 64);
  Program p(cfg);
  p.load(MemId::kAcc, 0, base(64), 1, 1, 1).store(0, base(16) + 100, 1, 1, 1).raw(RawInsn{6, 0}).finish();
  EXPECT_EQ(p.run(*dev), RunStatus::kError);
  EXPECT_EQ(data.data()[1600], 0) << "the store before the bad instruction must not have run";
  EXPECT_EQ(dev->stats(), Stats{});
}

// The device stays usable after every kind of failure.
TEST_F(FsimErrors, DeviceRecoversAfterFailure) {
  Program bad(cfg);
  bad.finish(test::pop_prev());
  EXPECT_EQ(bad.run(*dev), RunStatus::kError);
  Program good(cfg);
  good.load(MemId::kInp, 0, base(16), 1, 1, 1, test::push_next()).finish(test::pop_prev());
  EXPECT_EQ(good.run(*dev), RunStatus::kOk) << dev->last_error();
  EXPECT_EQ(dev->stats().inp_load_nbytes, 16u);
}

}  // namespace
}  // namespace vta
