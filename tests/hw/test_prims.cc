// The primitive cells against plain C++ models, cycle by cycle with random traffic.

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <set>
#include <string>

#include "Vvta_fifo.h"
#include "Vvta_fifo_head.h"
#include "Vvta_ram_1r1w.h"
#include "Vvta_token_queue.h"
#include "sim_harness.h"

namespace vta::test {
namespace {

// vta_fifo and vta_fifo_head (its head a register) promise the same ports cycle by cycle.
template <class Fifo>
void check_against_a_queue_model() {
  Harness<Fifo> h;  // Width 16, Depth 4
  h.reset();
  std::deque<uint16_t> model;
  std::mt19937 rng(1);
  size_t writes = 0, reads = 0, full_cycles = 0;
  bool hold = false;  // an offer not yet taken
  for (int cycle = 0; cycle < 20000; ++cycle) {
    // Phases of mostly-writing and mostly-reading so the FIFO fills and drains.
    const bool write_phase = (cycle / 200) % 2 == 0;
    // a producer that keeps an entry offered until it is taken (the handshake the FIFO asserts)
    if (!hold) {
      h->wvalid_i = rng() % 4 < (write_phase ? 3u : 1u);
      h->wdata_i = uint16_t(rng());
    }
    h->rready_i = rng() % 4 < (write_phase ? 1u : 3u);
    h.eval();
    ASSERT_EQ(h->rvalid_o, !model.empty()) << "cycle " << cycle;
    ASSERT_EQ(h->wready_o, model.size() < 4) << "cycle " << cycle;
    ASSERT_EQ(h->count_o, model.size()) << "cycle " << cycle;
    if (h->rvalid_o) {
      ASSERT_EQ(h->rdata_o, model.front()) << "cycle " << cycle;
    }
    const bool w = h->wvalid_i && h->wready_o, r = h->rvalid_o && h->rready_i;
    full_cycles += model.size() == 4;
    if (r) model.pop_front(), ++reads;
    if (w) model.push_back(h->wdata_i), ++writes;
    hold = h->wvalid_i && !w;
    h.tick();
  }
  EXPECT_GT(writes, 5000u);
  EXPECT_GT(reads, 5000u);
  EXPECT_GT(full_cycles, 100u) << "the test must also exercise a full FIFO";
}

TEST(HwFifo, MatchesAQueueModelUnderRandomTraffic) { check_against_a_queue_model<Vvta_fifo>(); }
TEST(HwFifoHead, MatchesAQueueModelUnderRandomTraffic) { check_against_a_queue_model<Vvta_fifo_head>(); }

TEST(HwFifo, AProducerWithdrawingAnOfferFailsTheNamedAssertion) {
  Harness<Vvta_fifo> h;
  h.reset();
  h->rready_i = 0;
  for (uint16_t v = 1; v <= 4; ++v) {  // fill it
    h->wvalid_i = 1, h->wdata_i = v;
    h.tick();
  }
  EXPECT_TRUE(h.take_assertion_failures().empty());
  h->wvalid_i = 1, h->wdata_i = 5;  // offered while full ...
  h.tick();
  h->wdata_i = 6;  // ... then changed before it was taken
  h.tick();
  const auto failures = h.take_assertion_failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].name, "WriteHeldUntilReady");
  EXPECT_NE(failures[0].path.find("vta_fifo.WriteHeldUntilReady"), std::string::npos) << failures[0].path;
  EXPECT_NE(failures[0].file.find("vta_fifo.sv"), std::string::npos);
}

template <class Fifo>
void check_read_and_write_when_full() {
  Harness<Fifo> h;
  h.reset();
  h->rready_i = 0;
  for (uint16_t v = 1; v <= 4; ++v) {
    h->wvalid_i = 1, h->wdata_i = v;
    h.eval();
    ASSERT_TRUE(h->wready_o);
    h.tick();
  }
  h->wdata_i = 5;
  h.eval();
  EXPECT_FALSE(h->wready_o) << "full: a write is not accepted, even with a read in the same cycle";
  h->rready_i = 1;
  h.eval();
  EXPECT_EQ(h->rdata_o, 1);
  h.tick();
  EXPECT_EQ(h->count_o, 3);
}

TEST(HwFifo, ReadAndWriteInTheSameCycleWhenFull) { check_read_and_write_when_full<Vvta_fifo>(); }
TEST(HwFifoHead, ReadAndWriteInTheSameCycleWhenFull) { check_read_and_write_when_full<Vvta_fifo_head>(); }

TEST(HwRam, RegisteredReadWithOneCycleLatencyAndReadFirst) {
  Harness<Vvta_ram_1r1w> h;  // Width 32, Depth 16
  std::vector<uint32_t> model(16, 0);
  for (uint32_t a = 0; a < 16; ++a) {
    h->we_i = 1, h->waddr_i = a, h->wdata_i = 0x1000 + a, h->re_i = 0;
    h.tick();
    model[a] = 0x1000 + a;
  }
  std::mt19937 rng(2);
  uint32_t expected = 0;
  bool have_expected = false;
  for (int cycle = 0; cycle < 5000; ++cycle) {
    h->we_i = rng() % 2, h->waddr_i = rng() % 16, h->wdata_i = uint32_t(rng());
    h->re_i = rng() % 2, h->raddr_i = rng() % 16;
    if (rng() % 4 == 0) h->raddr_i = h->waddr_i;  // same-address conflicts
    h.eval();
    const bool read = h->re_i;
    const uint32_t read_value = model[h->raddr_i];  // the old word, even if written this cycle
    if (h->we_i) model[h->waddr_i] = h->wdata_i;
    h.tick();
    if (read) {
      expected = read_value;
      have_expected = true;
    }
    if (have_expected) {
      ASSERT_EQ(h->rdata_o, expected) << "cycle " << cycle;
    }
  }
}

TEST(HwTokenQueue, CountsSaturatesAndFlagsOverflow) {
  Harness<Vvta_token_queue> h;  // 3-bit counter: at most 7 tokens
  h.reset();
  int model = 0;
  bool overflow = false;
  std::mt19937 rng(3);
  for (int cycle = 0; cycle < 20000; ++cycle) {
    const bool fill = (cycle / 100) % 2 == 0;
    h->push_i = rng() % 4 < (fill ? 3u : 1u);
    h->pop_i = rng() % 4 < (fill ? 1u : 3u);
    h.eval();
    ASSERT_EQ(h->ready_o, model > 0);
    ASSERT_EQ(h->count_o, model);
    ASSERT_EQ(h->overflow_o, overflow);
    const bool pop = h->pop_i && model > 0;
    const bool push = h->push_i && (model < 7 || pop);
    overflow = overflow || (h->push_i && !push);
    model += int(push) - int(pop);
    h.tick();
  }
  EXPECT_TRUE(overflow) << "the test must reach the overflow case";
  // the stages never push into a full counter nor pop an empty one: the random traffic here does
  // both, and the assertions saying so name each
  std::set<std::string> names;
  for (const auto& f : h.take_assertion_failures()) names.insert(f.name);
  EXPECT_EQ(names, (std::set<std::string>{"NoPopWhenEmpty", "NoPushWhenFull"}));
  h.reset();
  EXPECT_FALSE(h->overflow_o) << "reset clears the sticky overflow";
}

}  // namespace
}  // namespace vta::test
