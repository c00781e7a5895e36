// vta_uop_loop against the reference triple loop (spec 2.7), with random back-pressure.

#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "Vvta_uop_loop.h"
#include "sim_harness.h"
#include "vta/driver/build_config.h"

namespace vta::test {
namespace {

struct LoopSpec {
  uint32_t bgn, end, iter_out, iter_in, dfo, dfi, sfo, sfi, wfo, wfi;
};

using Step = std::tuple<uint32_t, uint64_t, uint64_t, uint64_t, bool>;  // uop, dst, src, wgt offsets, last

void set_insn(Harness<Vvta_uop_loop>& h, const LoopSpec& s) {
  const auto widths = loop_insn_widths(build_config());
  const auto lsb = packed_lsbs(widths);
  const uint64_t values[] = {0, s.bgn, s.end, s.iter_out, s.iter_in, s.dfo, s.dfi, s.sfo, s.sfi, s.wfo, s.wfi, 0, 0, 0};
  for (size_t f = 0; f < widths.size(); ++f) set_bits(h->insn_i, lsb[f], widths[f], values[f]);
}

std::vector<Step> reference(const LoopSpec& s) {
  std::vector<Step> out;
  for (uint32_t i = 0; i < s.iter_out; ++i)
    for (uint32_t j = 0; j < s.iter_in; ++j)
      for (uint32_t k = s.bgn; k < s.end; ++k) {
        const bool last = i + 1 == s.iter_out && j + 1 == s.iter_in && k + 1 == s.end;
        out.emplace_back(k, uint64_t(i) * s.dfo + uint64_t(j) * s.dfi, uint64_t(i) * s.sfo + uint64_t(j) * s.sfi,
                         uint64_t(i) * s.wfo + uint64_t(j) * s.wfi, last);
      }
  return out;
}

// Starts the instruction `s` (one cycle of start_i, no abort) with the consumer's ready at `ready`.
void start(Harness<Vvta_uop_loop>& h, const LoopSpec& s, int ready) {
  set_insn(h, s);
  h->abort_i = 0;
  h->start_i = 1;
  h->ready_i = ready;
  h.tick();
  h->start_i = 0;
}

std::vector<Step> run(Harness<Vvta_uop_loop>& h, const LoopSpec& s, std::mt19937& rng, int* cycles) {
  start(h, s, 0);
  std::vector<Step> got;
  *cycles = 0;
  for (int guard = 0; guard < 100000 && h->busy_o; ++guard) {
    h->ready_i = rng() % 4 != 0;
    h.eval();
    if (h->valid_o && h->ready_i) {
      got.emplace_back(h->uop_idx_o, h->dst_offset_o, h->src_offset_o, h->wgt_offset_o, h->last_o != 0);
    }
    h.tick();
    ++*cycles;
  }
  return got;
}

TEST(HwUopLoop, MatchesTheReferenceLoopNest) {
  Harness<Vvta_uop_loop> h;
  h.reset();
  std::mt19937 rng(11);
  const uint32_t max_la = (1u << build_config().log_acc_depth()) - 1;
  const uint32_t max_lw = (1u << build_config().log_wgt_depth()) - 1;
  for (int n = 0; n < 300; ++n) {
    LoopSpec s{};
    s.bgn = rng() % 200;
    s.end = s.bgn + 1 + rng() % 6;
    s.iter_out = 1 + rng() % 5, s.iter_in = 1 + rng() % 5;
    s.dfo = rng() % (max_la + 1), s.dfi = rng() % (max_la + 1);
    s.sfo = rng() % (max_la + 1), s.sfi = rng() % (max_la + 1);
    s.wfo = rng() % (max_lw + 1), s.wfi = rng() % (max_lw + 1);
    int cycles = 0;
    const auto got = run(h, s, rng, &cycles);
    ASSERT_EQ(got, reference(s)) << "instruction " << n;
  }
}

TEST(HwUopLoop, OneStepPerCycleWithoutBackPressure) {
  Harness<Vvta_uop_loop> h;
  h.reset();
  LoopSpec s{10, 20, 7, 3, 1, 2, 3, 4, 5, 6};
  start(h, s, 1);
  int steps = 0;
  while (h->busy_o && steps < 1000) {
    h.eval();
    ++steps;
    h.tick();
  }
  EXPECT_EQ(steps, 7 * 3 * 10);
}

TEST(HwUopLoop, AbortEndsTheLoop) {
  Harness<Vvta_uop_loop> h;
  h.reset();
  start(h, LoopSpec{0, 10, 10, 10, 1, 1, 1, 1, 1, 1}, 1);
  for (int c = 0; c < 5; ++c) h.tick();
  ASSERT_TRUE(h->busy_o);
  h->abort_i = 1;
  h.tick();
  h->abort_i = 0;
  h.eval();
  EXPECT_FALSE(h->busy_o);
  EXPECT_FALSE(h->valid_o);
}

TEST(HwUopLoop, EmptyLoopsProduceNoStep) {
  Harness<Vvta_uop_loop> h;
  h.reset();
  std::mt19937 rng(1);
  for (LoopSpec s : {LoopSpec{0, 1, 0, 1, 0, 0, 0, 0, 0, 0}, LoopSpec{0, 1, 1, 0, 0, 0, 0, 0, 0, 0},
                     LoopSpec{5, 5, 1, 1, 0, 0, 0, 0, 0, 0}, LoopSpec{6, 5, 1, 1, 0, 0, 0, 0, 0, 0}}) {
    int cycles = 0;
    EXPECT_TRUE(run(h, s, rng, &cycles).empty());
    EXPECT_EQ(cycles, 0);
  }
}

}  // namespace
}  // namespace vta::test
