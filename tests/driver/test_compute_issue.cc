// The rule of a compute stage that runs two instructions at once (vta/driver/compute_issue.h) and the
// timeline estimate of such a stage, against footprints and cycles computed by hand.

#include <gtest/gtest.h>

#include <random>

#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/compute_issue.h"
#include "vta/driver/program.h"
#include "vta/driver/timeline.h"

namespace vta {
namespace {

using test::pop_prev;
using test::Program;
using test::push_next;

std::vector<uint32_t> words(const Isa& isa, const std::vector<Uop>& uops) {
  std::vector<uint32_t> w;
  w.reserve(uops.size());
  for (const Uop& u : uops) w.push_back(isa.encode(u));
  return w;
}

RawInsn load_uops(const Isa& isa, uint32_t sram, uint32_t n) {
  MemInsn m;
  m.opcode = uint8_t(Opcode::kLoad);
  m.memory_type = uint8_t(MemId::kUop);
  m.sram_base = sram, m.y_size = 1, m.x_size = n, m.x_stride = n;
  return isa.encode(m);
}

// The micro-op words of the two kernels the estimate tests load: the GEMM's at micro-op 0 (accumulator
// 0), the ALU instruction's at micro-op 1 (accumulator `alu_dst`), by the index of their LOAD UOPs.
std::map<size_t, std::vector<uint32_t>> two_kernels(const Isa& isa, uint32_t alu_dst) {
  return {{0, words(isa, {{0, 0, 0}})}, {1, words(isa, {{alu_dst, 0, 0}})}};
}

GemmInsn gemm(uint32_t bgn, uint32_t end, uint32_t iter_out, uint32_t iter_in, uint32_t f_out, uint32_t f_in) {
  GemmInsn g;
  g.uop_bgn = bgn, g.uop_end = end, g.iter_out = iter_out, g.iter_in = iter_in;
  g.dst_factor_out = f_out, g.dst_factor_in = f_in;
  return g;
}

AluInsn alu_imm(uint32_t bgn, uint32_t end, uint32_t iter_in, DepFlags deps = {}) {
  AluInsn a;
  a.uop_bgn = bgn, a.uop_end = end, a.iter_out = 1, a.iter_in = iter_in, a.dst_factor_in = 1, a.src_factor_in = 1;
  a.alu_opcode = uint8_t(AluOp::kAdd), a.use_imm = true, a.imm = 1, a.deps = deps;
  return a;
}

// The two-slot estimate of `p`, whose LOAD UOPs 0 and 1 load two_kernels(alu_dst).
Timeline estimate_two(const Isa& isa, const Program& p, uint32_t alu_dst) {
  const std::map<size_t, std::vector<uint32_t>> uops = two_kernels(isa, alu_dst);
  EstimateOptions o;
  o.uop_loads = &uops;
  o.compute_issue = 2;
  return estimate_timeline(isa, p.insns(), {}, o);
}

// Each instruction's busy interval in `t`, by its index.
std::map<long, TimelineInterval> busy_by_insn(const Timeline& t) {
  std::map<long, TimelineInterval> busy;
  for (const TimelineInterval& i : t.intervals) {
    if (i.activity == Activity::kBusy) busy[i.insn] = i;
  }
  return busy;
}

TEST(ComputeIssue, TheTableKnowsRecordedLoadsUntilTheyAreOverwritten) {
  const Isa isa(build_config());
  UopLoadTable t;
  t.on_load(isa, 10, words(isa, {{5, 9, 0}, {2, 30, 0}, {7, 1, 0}}));  // micro-ops 10..12
  const auto s = t.find(10, 13);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->dst, (IndexRange{2, 7}));
  EXPECT_EQ(s->src, (IndexRange{1, 30}));
  EXPECT_EQ(t.find(11, 12)->dst, (IndexRange{2, 7}));  // a part of a load: its load's (wider) ranges
  EXPECT_FALSE(t.find(9, 12).has_value());             // not inside one load
  t.on_load(isa, 12, words(isa, {{0, 0, 0}}));         // overwrites micro-op 12
  EXPECT_FALSE(t.find(10, 13).has_value());
  EXPECT_EQ(t.find(12, 13)->dst, (IndexRange{0, 0}));
  // a full table replaces the entry used least recently, not the oldest: the runtime loads a kernel
  // once and reuses it tile after tile
  UopLoadTable full;
  for (int i = 0; i < UopLoadTable::kEntries; ++i) full.on_load(isa, 100 + i, words(isa, {{1, 1, 0}}));
  ASSERT_TRUE(full.find(100, 101).has_value());  // the oldest, used again
  full.on_load(isa, 300, words(isa, {{2, 2, 0}}));
  EXPECT_TRUE(full.find(100, 101).has_value());
  EXPECT_FALSE(full.find(101, 102).has_value());  // the least recently used made room
  EXPECT_EQ(full.find(300, 301)->dst, (IndexRange{2, 2}));
  for (int i = 2; i < UopLoadTable::kEntries; ++i) EXPECT_TRUE(full.find(100 + i, 101 + i).has_value()) << i;
}

TEST(ComputeIssue, FootprintsByHand) {
  const Config& c = build_config();
  const Isa isa(c);
  UopLoadTable t;
  t.on_load(isa, 0, words(isa, {{3, 0, 0}, {7, 0, 0}}));
  // dst = uop + i * 100 + j * 10, i < 2, j < 4: from 3 to 7 + 100 + 30
  ComputeFootprint g = compute_footprint(isa, isa.encode(gemm(0, 2, 2, 4, 100, 10)), t);
  EXPECT_EQ(g.slot, ComputeFootprint::Slot::kG);
  EXPECT_TRUE(g.known);
  EXPECT_EQ(g.acc, (IndexRange{3, 137}));
  EXPECT_EQ(g.uops, (IndexRange{0, 1}));
  // not recorded: unknown, so it would run alone
  EXPECT_FALSE(compute_footprint(isa, isa.encode(gemm(5, 6, 1, 1, 0, 0)), t).known);
  // past the accumulator buffer: it stops the run, alone
  const uint32_t depth = sram_depth(c, MemId::kAcc);
  EXPECT_FALSE(compute_footprint(isa, isa.encode(gemm(0, 2, 1, depth, 0, 1)), t).known);
  // an ALU instruction with a vector operand: src = uop.src + j * 2 over j < 3 (src 20 and 40)
  t.on_load(isa, 2, words(isa, {{1000, 20, 0}, {1001, 40, 0}}));
  AluInsn a = alu_imm(2, 4, 3);
  a.use_imm = false, a.src_factor_in = 2;
  const ComputeFootprint f = compute_footprint(isa, isa.encode(a), t);
  EXPECT_EQ(f.slot, ComputeFootprint::Slot::kA);
  EXPECT_EQ(f.acc, (IndexRange{1000, 1003}));
  EXPECT_EQ(f.acc_src, (IndexRange{20, 44}));
  // a LOAD ACC_8BIT of 2 rows of 3 with a pad column each side: 2 x 5 elements from 1024
  MemInsn m;
  m.opcode = uint8_t(Opcode::kLoad), m.memory_type = uint8_t(MemId::kAcc8Bit);
  m.sram_base = 1024, m.y_size = 2, m.x_size = 3, m.x_stride = 3, m.x_pad_0 = 1, m.x_pad_1 = 1;
  const ComputeFootprint l = compute_footprint(isa, isa.encode(m), t);
  EXPECT_EQ(l.acc, (IndexRange{1024, 1033}));
  EXPECT_EQ(compute_footprint(isa, load_uops(isa, 40, 8), t).uops, (IndexRange{40, 47}));
  Program fin(c);
  fin.finish();
  EXPECT_EQ(compute_footprint(isa, fin.insns()[0], t).slot, ComputeFootprint::Slot::kAlone);
}

TEST(ComputeIssue, IndependentOnlyInDifferentHalves) {
  const Config& c = build_config();
  const uint64_t half = sram_depth(c, MemId::kAcc) / 2;
  using Slot = ComputeFootprint::Slot;
  const ComputeFootprint g{Slot::kG, true, {0, 99}, {}, {0, 9}};
  const ComputeFootprint upper{Slot::kA, true, {half, half + 5}, {}, {}};
  const ComputeFootprint lower{Slot::kA, true, {200, 300}, {}, {}};
  const ComputeFootprint straddling{Slot::kA, true, {half - 1, half}, {}, {}};
  ComputeFootprint source_below = upper;
  source_below.acc_src = {0, 0};
  EXPECT_TRUE(independent(c, g, upper));
  EXPECT_TRUE(independent(c, upper, g));
  EXPECT_FALSE(independent(c, g, lower));  // disjoint, but in the GEMM's half
  EXPECT_TRUE(independent(c, g, lower, AccBanks::kAnyDisjoint));
  EXPECT_FALSE(independent(c, g, {Slot::kA, true, {99, 300}, {}, {}}, AccBanks::kAnyDisjoint));
  EXPECT_FALSE(independent(c, g, straddling));
  EXPECT_FALSE(independent(c, g, source_below));  // its operand lies in the GEMM's half
  ComputeFootprint unknown = upper;
  unknown.known = false;
  EXPECT_FALSE(independent(c, g, unknown));
  EXPECT_FALSE(independent(c, upper, upper));  // one slot each: two ALU instructions never overlap
  // a micro-op load beside a GEMM: not the GEMM's micro-ops
  const ComputeFootprint uops_after{Slot::kA, true, {}, {}, {10, 20}};
  const ComputeFootprint uops_over{Slot::kA, true, {}, {}, {9, 20}};
  EXPECT_TRUE(independent(c, g, uops_after));
  EXPECT_FALSE(independent(c, g, uops_over));
  const ComputeFootprint alone{Slot::kAlone, false, {}, {}, {}};
  EXPECT_FALSE(independent(c, g, alone));
}

// LOAD UOP (the GEMM's kernel), LOAD UOP (the ALU's), GEMM (100 cycles), ALU (50): each load one bus
// beat and the DRAM latency, 33 cycles. One at a time: 33 + 33 + 100 + 50 = 216. Two: the second load
// beside the GEMM (it writes no micro-op the GEMM reads) and the ALU instruction too when its tile is
// in the other half: 33 + 100 = 133; in the GEMM's half it waits for the GEMM: 33 + 100 + 50 = 183.
TEST(ComputeIssue, TheEstimateOverlapsWhatTheRuleAllows) {
  const Config& c = build_config();
  const Isa isa(c);
  const uint32_t half = sram_depth(c, MemId::kAcc) / 2;
  for (const uint32_t alu_dst : {half, 500u}) {
    Program p(c);
    p.raw(load_uops(isa, 0, 1)).raw(load_uops(isa, 1, 1)).gemm(gemm(0, 1, 1, 100, 0, 1)).alu(alu_imm(1, 2, 50));
    const std::map<size_t, std::vector<uint32_t>> uops = two_kernels(isa, alu_dst);
    EstimateOptions one, two;
    one.uop_loads = two.uop_loads = &uops;
    one.compute_issue = 1, two.compute_issue = 2;
    EXPECT_EQ(estimate_timeline(isa, p.insns(), {}, one).cycles, 216u);
    const Timeline t = estimate_timeline(isa, p.insns(), {}, two);
    EXPECT_EQ(t.cycles, alu_dst == half ? 133u : 183u) << alu_dst;
    // the compute stage's busy cycles count a cycle of two instructions once (216 as a sum)
    EXPECT_EQ(t.total(1, Activity::kBusy), alu_dst == half ? 133u : 183u) << alu_dst;
    two.banks = AccBanks::kAnyDisjoint;
    EXPECT_EQ(estimate_timeline(isa, p.insns(), {}, two).cycles, 133u) << alu_dst;
    // without the micro-ops the footprints are unknown: only the load overlaps
    EstimateOptions blind;
    blind.compute_issue = 2;
    EXPECT_EQ(estimate_timeline(isa, p.insns(), {}, blind).cycles, 183u);
  }
  EstimateOptions bad;
  bad.compute_issue = 3;
  EXPECT_THROW(estimate_timeline(isa, Program(c).finish().insns(), {}, bad), std::invalid_argument);
}

// Rule 2, the dispatch window: LOAD UOP (the GEMMs' kernel) 0-33, LOAD UOP (the ALU's) 33-66, GEMM
// (100 cycles, accumulator 0..99) 33-133, GEMM again 133-233, ALU (150 cycles). In program order the
// ALU instruction starts with the second GEMM: 133-283. With a window of 2 it starts before that GEMM
// once its own micro-ops are there, 66-216, and the program ends with the GEMM at 233 - but only when
// its tile is in the other half: in the GEMMs' half it waits for the second GEMM, 233-383, either way.
TEST(ComputeIssue, TheWindowLetsAnIndependentInstructionStartFirst) {
  const Config& c = build_config();
  const Isa isa(c);
  const uint32_t half = sram_depth(c, MemId::kAcc) / 2;
  for (const uint32_t alu_dst : {half, 500u}) {
    Program p(c);
    p.raw(load_uops(isa, 0, 1)).raw(load_uops(isa, 1, 1));
    p.gemm(gemm(0, 1, 1, 100, 0, 1)).gemm(gemm(0, 1, 1, 100, 0, 1)).alu(alu_imm(1, 2, 150));
    const std::map<size_t, std::vector<uint32_t>> uops = two_kernels(isa, alu_dst);
    EstimateOptions o;
    o.uop_loads = &uops;
    o.compute_issue = 2;
    EXPECT_EQ(estimate_timeline(isa, p.insns(), {}, o).cycles, alu_dst == half ? 283u : 383u) << alu_dst;
    o.window = 2;
    const Timeline t = estimate_timeline(isa, p.insns(), {}, o);
    EXPECT_EQ(t.cycles, alu_dst == half ? 233u : 383u) << alu_dst;
    for (const TimelineInterval& i : t.intervals) {
      if (i.insn == 4 && i.activity == Activity::kBusy) {
        EXPECT_EQ(i.begin, alu_dst == half ? 66u : 233u);
      }
    }
  }
  EstimateOptions bad;
  bad.compute_issue = 1, bad.window = 2;  // a window needs the two-slot stage
  EXPECT_THROW(estimate_timeline(isa, Program(c).finish().insns(), {}, bad), std::invalid_argument);
  bad.compute_issue = 2, bad.window = 0;
  EXPECT_THROW(estimate_timeline(isa, Program(c).finish().insns(), {}, bad), std::invalid_argument);
}

// Rule 2's tokens: a younger instruction must not pass an older one whose popped token it may rely on.
TEST(ComputeIssue, AnInstructionPassesOnlyPopsItDoesNotRelyOn) {
  const Config& c = build_config();
  const Isa isa(c);
  using Slot = ComputeFootprint::Slot;
  auto gemm_with = [&](DepFlags deps) {
    GemmInsn x = gemm(0, 1, 1, 1, 0, 1);
    x.deps = deps;
    return isa.encode(x);
  };
  const RawInsn g = gemm_with({}), a = isa.encode(alu_imm(1, 2, 1));
  const ComputeFootprint alu{Slot::kA, true, {0, 0}, {}, {1, 1}}, gemm_f{Slot::kG, true, {0, 0}, {}, {0, 0}};
  const ComputeFootprint uop_load{Slot::kA, true, {}, {}, {5, 6}};
  const RawInsn from_load = gemm_with(pop_prev()), from_store = gemm_with(test::pop_next());
  EXPECT_FALSE(relies_on_pops(a, alu, from_load));  // the load stage's buffers: only GEMMs read them
  EXPECT_TRUE(relies_on_pops(g, gemm_f, isa.encode(alu_imm(1, 2, 1, pop_prev()))));
  EXPECT_TRUE(relies_on_pops(a, alu, from_store));                           // the store stage read the accumulator
  EXPECT_FALSE(relies_on_pops(load_uops(isa, 5, 2), uop_load, from_store));  // micro-ops only
  EXPECT_TRUE(relies_on_pops(isa.encode(alu_imm(1, 2, 1, pop_prev())), alu, from_load));  // one queue, in order
  EXPECT_FALSE(relies_on_pops(a, alu, g));
}

// Rule 3: a token to the load stage leaves once every GEMM up to its instruction is done, not the
// instructions beside them: the ALU instruction beside the GEMM (66-216, the second slot's track)
// pushes it at 133, when the GEMM ends, and the LOAD INP that waits for it starts then; a token to the
// store waits for both (216): every other token is pushed once everything before it is done.
TEST(ComputeIssue, ATokenToTheLoadStageWaitsOnlyForTheGemms) {
  const Config& c = build_config();
  const Isa isa(c);
  const uint32_t half = sram_depth(c, MemId::kAcc) / 2;
  for (const bool to_load : {true, false}) {
    Program p(c);
    p.raw(load_uops(isa, 0, 1)).raw(load_uops(isa, 1, 1)).gemm(gemm(0, 1, 1, 100, 0, 1));
    p.alu(alu_imm(1, 2, 150, to_load ? test::push_prev() : push_next()));
    if (to_load) {
      p.load(MemId::kInp, 0, 0, 1, 1, 1, test::pop_next());
    } else {
      p.store(half, 0, 1, 1, 1, pop_prev());
    }
    const Timeline t = estimate_two(isa, p, half);
    std::map<long, TimelineInterval> busy = busy_by_insn(t);
    EXPECT_EQ(busy[2].end, 133u);
    EXPECT_EQ(busy[2].slot, 0);
    EXPECT_EQ(busy[3].begin, 66u);
    EXPECT_EQ(busy[3].slot, 1);  // the second slot's track
    EXPECT_EQ(busy[4].begin, to_load ? 133u : 216u) << to_load;
    EXPECT_NE(t.to_trace_json().find("compute (beside the GEMMs)"), std::string::npos);
  }
}

// Rule 3's last clause: an instruction that pushes to a queue starts once the stage's previous push to
// it has left. Beside the GEMM (33-133) the first ALU instruction (10 cycles, the other half) runs 66-76
// and its token to the store waits for the GEMM, older, until 133; the second ALU instruction, which
// pushes to the store too, starts then (133-143), not at 76 as the same instruction without a push does.
TEST(ComputeIssue, APushWaitsForTheStagesPreviousPushToItsQueue) {
  const Config& c = build_config();
  const Isa isa(c);
  const uint32_t half = sram_depth(c, MemId::kAcc) / 2;
  for (const bool second_pushes : {true, false}) {
    Program p(c);
    p.raw(load_uops(isa, 0, 1)).raw(load_uops(isa, 1, 1)).gemm(gemm(0, 1, 1, 100, 0, 1));
    p.alu(alu_imm(1, 2, 10, push_next())).alu(alu_imm(1, 2, 10, second_pushes ? push_next() : DepFlags{}));
    const Timeline t = estimate_two(isa, p, half);
    std::map<long, TimelineInterval> busy = busy_by_insn(t);
    EXPECT_EQ(busy[3].begin, 66u);
    EXPECT_EQ(busy[4].begin, second_pushes ? 133u : 76u) << second_pushes;
    EXPECT_EQ(t.cycles, second_pushes ? 143u : 133u) << second_pushes;
  }
}

// Streams of random instruction words (most of them invalid) are estimated in both modes without a
// crash or an unbounded allocation, the micro-op loads read from a memory that answers every address.
TEST(ComputeIssue, RandomWordsAreEstimatedInBothModes) {
  const Config& c = build_config();
  const Isa isa(c);
  std::mt19937_64 rng(67);
  const std::vector<uint8_t> memory(size_t(1) << 16, 0x5a);
  auto read = [&](uint64_t, size_t bytes) { return bytes <= memory.size() ? memory.data() : nullptr; };
  for (int program = 0; program < 300; ++program) {
    std::vector<RawInsn> insns(64);
    for (RawInsn& r : insns) r = {rng(), rng()};
    const auto uops = read_uop_loads(isa, insns, read);
    for (const auto& [index, words] : uops) EXPECT_LE(words.size(), sram_depth(c, MemId::kUop)) << index;
    EstimateOptions two;
    two.compute_issue = 2;
    two.uop_loads = &uops;
    const Timeline a = estimate_timeline(isa, insns, {}, two);
    two.window = 8;
    const Timeline w = estimate_timeline(isa, insns, {}, two);
    const Timeline b = estimate_timeline(isa, insns);
    for (const Timeline* t : {&a, &w, &b}) {
      for (const TimelineInterval& i : t->intervals) EXPECT_LE(i.end, t->cycles);
    }
  }
}

}  // namespace
}  // namespace vta
