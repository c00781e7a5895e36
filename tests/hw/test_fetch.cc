// vta_fetch with a C++ memory model: every instruction reaches the queue of its stage (vta::stage_of),
// in program order, under random queue back-pressure, with the verdict its stage acts on
// (vta_insn_check against insn_legal.h's rules); commands never ask for more than the buffer holds;
// and fetch never refuses a read beat (it must not hold the shared read channel).

#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "Vvta_fetch.h"
#include "Vvta_fetch_synth.h"
#include "insn_legal.h"
#include "mem_port.h"
#include "sim_harness.h"
#include "vta/driver/build_config.h"
#include "vta/driver/isa.h"

namespace vta::test {
namespace {

constexpr uint64_t kBase = 0x40000;

// Runs: random instructions (`boundary` false: every field random) or instructions around each
// legality rule's boundary (insn_legal.h); each dispatched one is checked for its queue, its order and
// its verdict; `legal` counts the legal ones dispatched. Model: the simulator's text (the verdict
// decided as an instruction enters fetch's buffer) or synthesis's (decided as it leaves).
template <class Model>
void dispatch_runs(bool boundary, int& legal) {
  Harness<Model> h;
  h->start_i = 0;
  set_rd_rsp(h->mem_rsp_i, false, false, 0);
  h->load_ready_i = h->compute_ready_i = h->store_ready_i = 0;
  h.reset();
  const Config& cfg = build_config();
  const Isa isa(cfg);
  std::mt19937_64 rng(boundary ? 18 : 17);
  const int bus = 8;  // the default 64-bit bus
  legal = 0;
  for (int run = 0; run < 60; ++run) {
    const uint32_t count = 1 + rng() % 120, first = uint32_t(rng() % 64);
    std::vector<RawInsn> mem(first + count + 8);
    if (boundary) {
      mem = boundary_instructions(cfg, isa, rng, int(mem.size()));
    } else {
      for (auto& r : mem) r = RawInsn{rng(), rng()};
    }
    std::vector<RawInsn> want[3], got[3];
    for (uint32_t i = 0; i < count; ++i) want[int(stage_of(mem[first + i])) - 1].push_back(mem[first + i]);
    h->insn_addr_i = uint32_t(kBase + first * 16);
    h->insn_count_i = count;
    h->start_i = 1;
    h.tick();
    h->start_i = 0;
    std::deque<uint64_t> beats;
    // Runs alternate: no stalls; random stalls everywhere; queues blocked for long stretches while
    // memory streams at full speed (the buffer fills up).
    const int mode = run % 3;
    const bool stalls = mode == 1;
    uint64_t requested = 0, dispatched = 0;
    int cycles = 0;
    for (; h->busy_o && cycles < 100000; ++cycles) {
      const bool blocked = mode == 2 && (cycles / 40) % 2 == 0;
      const bool cmd_ready = !stalls || rng() % 3 != 0;
      const bool data_valid = !beats.empty() && (!stalls || rng() % 3 != 0);
      set_rd_rsp(h->mem_rsp_i, cmd_ready, data_valid, data_valid ? beats.front() : 0);
      h->load_ready_i = !blocked && (!stalls || rng() % 2);
      h->compute_ready_i = !blocked && (!stalls || rng() % 2);
      h->store_ready_i = !blocked && (!stalls || rng() % 2);
      h.eval();
      const RdReq req = RdReq::of(h->mem_req_o);
      if (data_valid) {
        ASSERT_TRUE(req.data_ready) << "fetch refused a read beat";
        beats.pop_front();
      }
      if (req.cmd_valid && cmd_ready) {
        const uint64_t addr = req.cmd.addr, bytes = req.cmd.bytes;
        ASSERT_EQ(addr % 16, 0u);
        requested += bytes / 16;
        ASSERT_LE(requested - dispatched, 16u) << "fetch asked for more than its buffer can hold";
        for (uint64_t a = addr; a < addr + bytes; a += bus) {
          const RawInsn& r = mem[(a - kBase) / 16];
          beats.push_back((a % 16) == 0 ? r.lo : r.hi);
        }
      }
      const RawInsn insn = get_insn(h->insn_o);
      const int valid = int(h->load_valid_o) + int(h->compute_valid_o) + int(h->store_valid_o);
      ASSERT_LE(valid, 1);
      if (valid == 1) {
        const bool verdict = legal_reference(cfg, isa, insn);
        EXPECT_EQ(bool(h->insn_legal_o), verdict) << isa.disassemble(insn);
        legal += verdict && ((h->load_valid_o && h->load_ready_i) || (h->compute_valid_o && h->compute_ready_i) ||
                             (h->store_valid_o && h->store_ready_i));
      }
      dispatched += (h->load_valid_o && h->load_ready_i) || (h->compute_valid_o && h->compute_ready_i) ||
                    (h->store_valid_o && h->store_ready_i);
      if (h->load_valid_o && h->load_ready_i) got[0].push_back(insn);
      if (h->compute_valid_o && h->compute_ready_i) got[1].push_back(insn);
      if (h->store_valid_o && h->store_ready_i) got[2].push_back(insn);
      h.tick();
    }
    ASSERT_FALSE(h->busy_o) << "run " << run;
    EXPECT_TRUE(beats.empty());
    for (int q = 0; q < 3; ++q) EXPECT_EQ(got[q], want[q]) << "queue " << q << " run " << run;
  }
}

TEST(HwFetch, DispatchesEveryInstructionToItsQueueInOrder) {
  int legal = 0;
  dispatch_runs<Vvta_fetch>(false, legal);
}

// The two steps of the check (rows and columns summed as an instruction enters the buffer, the rest
// as it leaves) give the reference's verdict at each rule's boundary, both ways.
TEST(HwFetch, ChecksEachInstructionAsItsStageRules) {
  int legal = 0;
  dispatch_runs<Vvta_fetch>(true, legal);
  EXPECT_GT(legal, 500) << "the boundary instructions must be legal about half the time";
  EXPECT_LT(legal, 3000);
}

// The same on the text synthesis reads.
TEST(HwFetchSynthesisText, ChecksEachInstructionAsItsStageRules) {
  int legal = 0;
  dispatch_runs<Vvta_fetch_synth>(true, legal);
  EXPECT_GT(legal, 500);
  dispatch_runs<Vvta_fetch_synth>(false, legal);
}

TEST(HwFetch, ZeroInstructionsIsNotStarted) {
  Harness<Vvta_fetch> h;
  h.reset();
  h->insn_count_i = 0;
  h->start_i = 1;
  h.tick();
  h->start_i = 0;
  h.eval();
  EXPECT_FALSE(h->busy_o);
  EXPECT_FALSE(RdReq::of(h->mem_req_o).cmd_valid);
}

}  // namespace
}  // namespace vta::test
