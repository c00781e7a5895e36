// Timelines (vta/driver/timeline.h): recorded by the tsim cycle by cycle, estimated from a program, written
// as trace-event JSON and SVG. Checked against what the run must have done: the compute stage is
// busy for at least one cycle per GEMM micro-op, the load stage for at least the bus cycles of the
// bytes it loads, intervals of a stage never overlap and lie inside the run; the estimate against
// closed forms on a hand-built program.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "vta/driver/build_config.h"
#include "vta/driver/timeline.h"
#include "vta/tsim/simulator.h"
#include "workloads.h"

namespace vta::test {
namespace {

void expect_well_formed(const Timeline& t) {
  for (int lane = 0; lane < Timeline::kLanes; ++lane) {
    uint64_t last_end = 0;
    for (const auto& i : t.intervals) {
      if (i.lane != lane) continue;
      EXPECT_LT(i.begin, i.end);
      EXPECT_GE(i.begin, last_end) << "overlapping intervals on " << to_string(kStageOrder[lane]);
      EXPECT_LE(i.end, t.cycles);
      EXPECT_GE(i.insn, 0);
      EXPECT_LT(size_t(i.insn), t.insn_names.size());
      last_end = i.end;
    }
  }
}

TEST(TsimTimeline, RecordsWhatEachStageDid) {
  const Config& cfg = build_config();
  std::vector<Timeline> runs;
  tsim::Simulator::Options o;
  o.on_timeline = [&](const Timeline& t) { runs.push_back(t); };
  auto dev = tsim::make_tsim_device(o);
  const WorkloadResult r = blocked_gemm(*dev, 4, 8 * cfg.block_in(), 2 * cfg.block_in(), false, 2, 3);
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  ASSERT_EQ(runs.size(), 1u);
  const Timeline& t = runs[0];
  expect_well_formed(t);
  ASSERT_TRUE(r.stats.cycle_count);
  EXPECT_GE(t.cycles, *r.stats.cycle_count);
  EXPECT_LE(t.cycles, *r.stats.cycle_count + 200);  // plus the register accesses around the run
  // the compute stage did every GEMM micro-op; the load stage moved every byte over the bus
  EXPECT_GE(t.total(1, Activity::kBusy), r.stats.gemm_counter);
  const uint64_t load_bytes = r.stats.inp_load_nbytes + r.stats.wgt_load_nbytes;
  EXPECT_GE(t.total(0, Activity::kBusy) + t.total(0, Activity::kMemory), load_bytes / (cfg.bus_width() / 8));
  // the first GEMM waits for the load's token
  EXPECT_GT(t.total(1, Activity::kToken), 0u);
  bool gemm_seen = false, store_seen = false;
  for (const auto& i : t.intervals) {
    gemm_seen |= i.lane == 1 && i.activity == Activity::kBusy && t.insn_names[size_t(i.insn)] == "GEMM";
    store_seen |= i.lane == 2 && t.insn_names[size_t(i.insn)] == "STORE";
  }
  EXPECT_TRUE(gemm_seen);
  EXPECT_TRUE(store_seen);
}

TEST(Timeline, EstimateFollowsTheTokenRulesAndTheCosts) {
  const Config& cfg = build_config();
  Program p(cfg);
  // LOAD INP (4 elements) -> GEMM (2 uops x 3 x 1) -> STORE (1 element) -> FINISH
  p.load(MemId::kInp, 0, 0, 1, 4, 4, push_next());
  GemmInsn g;
  g.uop_bgn = 0, g.uop_end = 2, g.iter_out = 3, g.iter_in = 1;
  g.deps = pop_prev() | push_next();
  p.gemm(g);
  p.store(0, 0, 1, 1, 1, pop_prev() | push_prev());
  p.finish(pop_next());
  const Isa isa(cfg);
  EstimateOptions one_at_a_time;  // (the stage the waits below are counted for, whatever the build's)
  one_at_a_time.compute_issue = 1;
  const Timeline t = estimate_timeline(isa, p.insns(), {}, one_at_a_time);
  expect_well_formed(t);
  const uint64_t bus = uint64_t(cfg.bus_width()) / 8;
  const uint64_t load = (4 * uint64_t(cfg.inp_elem_bytes()) + bus - 1) / bus + 32;
  const uint64_t gemm = 6;
  const uint64_t store = (uint64_t(cfg.out_elem_bytes()) + bus - 1) / bus + 16;
  EXPECT_EQ(t.total(0, Activity::kBusy), load);
  EXPECT_EQ(t.total(1, Activity::kBusy), gemm + 1);       // and FINISH
  EXPECT_EQ(t.total(1, Activity::kToken), load + store);  // GEMM waits for the load, FINISH for the store
  EXPECT_EQ(t.total(2, Activity::kToken), load + gemm);
  EXPECT_EQ(t.cycles, load + gemm + store + 1);
  EXPECT_EQ(t.insn_names, (std::vector<std::string>{"LOAD INP", "GEMM", "STORE", "FINISH"}));
  // tokens left by an earlier run: a FINISH popping s2g needs one
  Program finish_only(cfg);
  finish_only.finish(pop_next());
  EXPECT_TRUE(estimate_timeline(isa, finish_only.insns()).intervals.empty());  // a deadlock: nothing runs
  TokenCounts left;
  left.s2g = 1;
  EXPECT_EQ(estimate_timeline(isa, finish_only.insns(), left).cycles, 1u);
}

// Loads of both stages share the read channel: an accumulator load on the compute stage issued with an
// input load waits for the input load's beats (waiting for memory). An ALU instruction costs one
// cycle per micro-op with an immediate, one more per read of a vector operand: every micro-op's when
// the source moves, one read in all when a one-micro-op kernel keeps its source (a bias).
TEST(Timeline, EstimateSharesTheReadChannelAndChargesVectorAluPerSourceRead) {
  const Config& cfg = build_config();
  Program p(cfg);
  p.load(MemId::kInp, 0, 0, 1, 4, 4);  // load stage
  p.load(MemId::kAcc, 0, 0, 1, 2, 2);  // compute stage, at the same time
  AluInsn a;
  a.uop_bgn = 0, a.uop_end = 1, a.iter_out = 3, a.iter_in = 1, a.use_imm = false;
  a.dst_factor_out = 1, a.src_factor_out = 1;
  p.alu(a);  // the source moves: 3 reads
  a.src_factor_out = 0;
  p.alu(a);  // the source held: 1 read
  a.use_imm = true;
  p.alu(a);
  p.finish();
  const Timeline t = estimate_timeline(Isa(cfg), p.insns());
  expect_well_formed(t);
  const uint64_t bus = uint64_t(cfg.bus_width()) / 8;
  const uint64_t inp_beats = (4 * uint64_t(cfg.inp_elem_bytes()) + bus - 1) / bus;
  const uint64_t acc_beats = (2 * uint64_t(cfg.acc_elem_bytes()) + bus - 1) / bus;
  EXPECT_EQ(t.total(0, Activity::kBusy), inp_beats + 32);
  EXPECT_EQ(t.total(1, Activity::kMemory), inp_beats) << "the accumulator load waits for the input load's beats";
  // load, the two vector ALU instructions, the immediate one, FINISH
  EXPECT_EQ(t.total(1, Activity::kBusy), acc_beats + 32 + (3 + 3) + (3 + 1) + 3 + 1);
  EXPECT_EQ(t.cycles, inp_beats + acc_beats + 32 + 6 + 4 + 3 + 1);
}

TEST(Timeline, TraceJsonAndSvg) {
  Program p(build_config());
  p.load(MemId::kInp, 0, 0, 1, 4, 4).finish();
  Timeline t = estimate_timeline(Isa(build_config()), p.insns());
  t.title = "demo <run>";
  const auto j = nlohmann::json::parse(t.to_trace_json());
  size_t complete = 0, names = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "X") {
      ++complete;
      EXPECT_GE(e.at("dur").get<double>(), 0.0);
    }
    if (e.at("name") == "thread_name") ++names;
  }
  EXPECT_EQ(complete, t.intervals.size());
  EXPECT_EQ(names, 3u);
  EXPECT_EQ(j.at("otherData").at("cycles").get<uint64_t>(), t.cycles);
  const std::string svg = timelines_to_svg({t, t});
  EXPECT_TRUE(svg.starts_with("<svg"));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_NE(svg.find("demo &lt;run&gt; (estimated)"), std::string::npos);
  EXPECT_NE(svg.find("#43a047"), std::string::npos);  // a LOAD drawn
}

}  // namespace
}  // namespace vta::test
