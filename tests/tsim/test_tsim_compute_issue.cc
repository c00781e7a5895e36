// The compute stage of the build's RTL on the tsim, against the rule of vta/driver/compute_issue.h:
// with COMPUTE_ISSUE 2 (hw/rtl/vta_compute_dual.sv) an ALU instruction runs beside a GEMM when its
// accumulator tile lies in the other half of the buffer and after it otherwise, a micro-op load runs
// beside a GEMM that does not read what it writes, and a token to the load stage leaves when the GEMMs
// before it are done, not the ALU instruction beside them; with COMPUTE_ISSUE 1 (vta_compute.sv)
// nothing overlaps. Each program's cycles are compared with the same program's other placement (the
// difference is the overlap) and with the estimate of the stage the build has.

#include <gtest/gtest.h>

#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/compute_issue.h"
#include "vta/driver/timeline.h"
#include "vta/tsim/simulator.h"

namespace vta::test {
namespace {

struct Measured {
  uint64_t tsim = 0;      // cycles on the tsim
  uint64_t estimate = 0;  // the estimate of the build's stage (its COMPUTE_ISSUE)
  Timeline timeline;      // the tsim's, cycle by cycle
};

// LOAD UOP (the GEMM's micro-op: accumulator 0), LOAD UOP (the ALU instruction's: accumulator
// `alu_dst`), a resetting GEMM over accumulator 0..gemm_n-1, an ALU ADD of an immediate over
// alu_dst..alu_dst+alu_n-1 (its flags `alu_deps`), then `tail` (e.g. what pops its token), FINISH:
// run on the tsim and estimated.
template <class Tail>
Measured run(uint32_t alu_dst, uint32_t gemm_n, uint32_t alu_n, DepFlags alu_deps, Tail&& tail) {
  const Config& c = build_config();
  const Isa isa(c);
  const DevBuf uops(2 * Config::kUopElemBytes);
  put_uops(isa, uops, {{0, 0, 0}, {alu_dst, 0, 0}});
  const uint32_t base = uint32_t(uops.phys() / Config::kUopElemBytes);
  Program p(c);
  p.load(MemId::kUop, 0, base, 1, 1, 1).load(MemId::kUop, 1, base + 1, 1, 1, 1);
  GemmInsn g;
  g.reset = true, g.uop_bgn = 0, g.uop_end = 1, g.iter_out = 1, g.iter_in = gemm_n, g.dst_factor_in = 1;
  p.gemm(g);
  AluInsn a;
  a.uop_bgn = 1, a.uop_end = 2, a.iter_out = 1, a.iter_in = alu_n, a.dst_factor_in = 1, a.src_factor_in = 1;
  a.alu_opcode = uint8_t(AluOp::kAdd), a.use_imm = true, a.imm = 1, a.deps = alu_deps;
  p.alu(a);
  tail(p);
  p.finish();
  Measured m;
  tsim::Simulator::Options o;
  o.on_timeline = [&](const Timeline& t) { m.timeline = t; };
  auto dev = tsim::make_tsim_device(o);
  const RunStatus status = p.run(*dev);
  EXPECT_EQ(status, RunStatus::kOk) << dev->last_error();
  m.tsim = dev->stats().cycle_count.value_or(0);
  // the estimate, with the micro-ops the loads read
  std::map<size_t, std::vector<uint32_t>> loads{{0, {uops.as<uint32_t>()[0]}}, {1, {uops.as<uint32_t>()[1]}}};
  EstimateOptions e;
  e.uop_loads = &loads;
  m.estimate = estimate_timeline(isa, p.insns(), {}, e).cycles;
  return m;
}

// When instruction `insn` began to run on lane `lane` of `t` (the first busy cycle).
uint64_t began(const Timeline& t, int lane, long insn) {
  for (const TimelineInterval& i : t.intervals) {
    if (i.lane == lane && i.insn == insn && i.activity == Activity::kBusy) return i.begin;
  }
  ADD_FAILURE() << "instruction " << insn << " never ran on lane " << lane;
  return 0;
}

TEST(TsimComputeIssue, AnAluInstructionRunsBesideAGemmOnlyInTheOtherHalf) {
  const Config& c = build_config();
  const uint32_t half = sram_depth(c, MemId::kAcc) / 2;
  ASSERT_GE(half, 400u) << "the program's tiles need 400 accumulator elements below the half";
  // the GEMM over 0..299, the ALU instruction over 200 elements in the other half or in the GEMM's
  const Measured apart = run(half, 300, 200, {}, [](Program&) {});
  const Measured same = run(300, 300, 200, {}, [](Program&) {});
  std::printf("ALU in the other half: %llu tsim cycles (estimated %llu); in the GEMM's: %llu (%llu)\n",
              (unsigned long long)apart.tsim, (unsigned long long)apart.estimate, (unsigned long long)same.tsim,
              (unsigned long long)same.estimate);
  if (c.compute_issue() == 1) {
    EXPECT_EQ(apart.tsim, same.tsim) << "one instruction at a time: the placement changes nothing";
    EXPECT_EQ(apart.estimate, same.estimate);
  } else {
    // the ALU instruction's 200 cycles hide under the GEMM's 300 (and its pipeline's few more)
    EXPECT_GE(same.tsim, apart.tsim + 200);
    EXPECT_LE(same.tsim, apart.tsim + 210);
    EXPECT_EQ(same.estimate, apart.estimate + 200);
  }
  // the estimate of the build's stage leaves out a fixed cost (fetching, the launch), under 100 cycles
  for (const Measured& m : {apart, same}) {
    EXPECT_GT(m.tsim, m.estimate);
    EXPECT_LT(m.tsim, m.estimate + 100);
  }
}

// The tsim's timeline of the same program, the ALU instruction in the other half: the GEMM's 300
// cycles on the compute track and, with COMPUTE_ISSUE 2, the ALU instruction's 200 on the second
// slot's track, beside them (the recorder read one compute instruction at a time and cut the GEMM's
// interval where the ALU instruction began); one instruction at a time, the ALU instruction after the
// GEMM on the compute track. Each instruction has one busy interval.
TEST(TsimComputeIssue, TheTimelineShowsWhatEachSlotRuns) {
  const Config& c = build_config();
  const uint32_t half = sram_depth(c, MemId::kAcc) / 2;
  const Measured m = run(half, 300, 200, {}, [](Program&) {});
  const TimelineInterval* gemm = nullptr;
  const TimelineInterval* alu = nullptr;
  for (const TimelineInterval& i : m.timeline.intervals) {
    if (i.lane != 1 || i.activity != Activity::kBusy) continue;
    const TimelineInterval** found = i.insn == 2 ? &gemm : i.insn == 3 ? &alu : nullptr;
    if (found == nullptr) continue;
    EXPECT_EQ(*found, nullptr) << "instruction " << i.insn << " has two busy intervals";
    *found = &i;
  }
  ASSERT_NE(gemm, nullptr);
  ASSERT_NE(alu, nullptr);
  std::printf("GEMM %llu..%llu (slot %d), ALU %llu..%llu (slot %d)\n", (unsigned long long)gemm->begin,
              (unsigned long long)gemm->end, gemm->slot, (unsigned long long)alu->begin, (unsigned long long)alu->end,
              alu->slot);
  EXPECT_EQ(gemm->slot, 0);
  EXPECT_GE(gemm->end - gemm->begin, 300u);
  EXPECT_LE(gemm->end - gemm->begin, 310u);
  EXPECT_GE(alu->end - alu->begin, 200u);
  EXPECT_LE(alu->end - alu->begin, 210u);
  if (c.compute_issue() == 2) {
    EXPECT_EQ(alu->slot, 1);
    EXPECT_LT(alu->begin, gemm->end) << "beside the GEMM";
    EXPECT_GE(m.timeline.total(1, Activity::kBusy), 300u);
    EXPECT_LE(m.timeline.total(1, Activity::kBusy), 320u) << "a cycle of both slots counted once";
  } else {
    EXPECT_EQ(alu->slot, 0);
    EXPECT_GE(alu->begin, gemm->end) << "after the GEMM";
  }
}

}  // namespace
}  // namespace vta::test

namespace vta::test {
namespace {

// Rule 3: the ALU instruction beside a GEMM (100 cycles) runs 300 cycles and pushes a token to the load
// stage; the LOAD INP that waits for it starts when the GEMM is done, under the ALU instruction, since
// only GEMMs read the buffers the load stage writes. One instruction at a time, the ALU instruction
// runs after the GEMM and the token leaves when it ends.
TEST(TsimComputeIssue, ATokenToTheLoadStageLeavesWhenTheGemmsAreDone) {
  const Config& c = build_config();
  const uint32_t half = sram_depth(c, MemId::kAcc) / 2;
  const DevBuf inp(size_t(c.inp_elem_bytes()));
  const Measured m = run(half, 100, 300, push_prev(), [&](Program& p) {
    p.load(MemId::kInp, 0, uint32_t(inp.phys() / uint64_t(c.inp_elem_bytes())), 1, 1, 1, pop_next());
  });
  const uint64_t load = began(m.timeline, 0, 4), alu = began(m.timeline, 1, 3);
  std::printf("ALU instruction from cycle %llu, LOAD INP from %llu, %llu cycles in all\n", (unsigned long long)alu,
              (unsigned long long)load, (unsigned long long)m.tsim);
  if (c.compute_issue() == 2) {
    EXPECT_LT(load, alu + 150) << "under the ALU instruction";
    EXPECT_GT(load, alu) << "not before the GEMM is done";
  } else {
    EXPECT_GT(load, alu + 300) << "after the ALU instruction";
  }
}

}  // namespace
}  // namespace vta::test
