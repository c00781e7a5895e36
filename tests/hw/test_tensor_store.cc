// vta_tensor_store against the spec's STORE semantics (3.5) with C++ models of the output SRAM and
// of memory (random back-pressure, delayed write acknowledgements): the DRAM image equals rows of
// x_size elements read contiguously from sram_base, written x_stride apart; nothing else changes; the
// beats cover exactly each row's bus-aligned range with strobes inside it; and the engine reports
// pending until the last acknowledgement.

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <type_traits>

#include "Vvta_ts_e16.h"
#include "Vvta_ts_e4.h"
#include "Vvta_ts_e8.h"
#include "mem_port.h"
#include "sim_harness.h"
#include "vta/driver/build_config.h"

namespace vta::test {
namespace {

constexpr uint64_t kDramBase = 0x20000;
constexpr size_t kDramBytes = 1 << 16;

struct Store {
  uint32_t sram_base, dram_base, y, x, stride;
};

template <class M>
class TensorStoreTest {
 public:
  TensorStoreTest(int elem, uint32_t seed) : elem_(elem), rng_(seed), sram_(256 * size_t(elem)) {
    for (auto& b : sram_) b = uint8_t(rng_());
    h_->start_i = 0;
    set_wr_rsp(h_->mem_rsp_i, false, false, false);
    h_.reset();
  }

  int run(const Store& s, bool stalls) {
    std::vector<uint8_t> dram(kDramBytes, 0xee), want = dram;
    for (uint32_t r = 0; r < s.y; ++r)
      for (uint32_t c = 0; c < s.x; ++c)
        for (int b = 0; b < elem_; ++b) {
          want[(uint64_t(s.dram_base) + uint64_t(r) * s.stride + c) * elem_ + b - kDramBase] =
              sram_[(size_t(s.sram_base) + size_t(r) * s.x + c) * elem_ + b];
        }
    const auto lsb = packed_lsbs(kMemWidths);
    const uint64_t fields[] = {4, s.sram_base, s.dram_base, s.y, s.x, s.stride, 0, 0, 0, 0};
    for (size_t f = 0; f < kMemWidths.size(); ++f) set_bits(h_->insn_i, lsb[f], kMemWidths[f], fields[f]);
    set_wr_rsp(h_->mem_rsp_i, false, false, false);  // no acknowledgement is outstanding between stores
    h_->start_i = 1;
    h_.tick();
    h_->start_i = 0;
    struct Cmd {
      uint64_t addr, bytes, next, end;
    };
    std::deque<Cmd> cmds;
    std::deque<int> acks;  // cycles until each pending acknowledgement
    const int bus = int(build_config().bus_width() / 8);
    bool read_pending = false;
    uint32_t read_addr = 0;
    size_t acked = 0;
    int cycles = 1;
    for (; (h_->busy_o || h_->pending_o) && cycles < 100000; ++cycles) {
      if (read_pending) set_elem(read_addr);
      const bool cmd_ready = !stalls || rng_() % 3 != 0;
      const bool data_ready = !stalls || rng_() % 3 != 0;
      const bool ack = !acks.empty() && acks.front() <= 0;
      set_wr_rsp(h_->mem_rsp_i, cmd_ready, data_ready, ack);
      h_.eval();
      const WrReq req = WrReq::of(h_->mem_req_o);
      if (ack) acks.pop_front(), ++acked;
      for (auto& a : acks) --a;
      read_pending = h_->sram_re_o;
      read_addr = h_->sram_raddr_o;
      if (req.cmd_valid && cmd_ready) {
        const uint64_t addr = req.cmd.addr, bytes = req.cmd.bytes;
        EXPECT_EQ(bytes, uint64_t(s.x) * elem_);
        cmds.push_back({addr, bytes, addr / bus * bus, (addr + bytes + bus - 1) / bus * bus});
      }
      if (req.data_valid && data_ready) {
        EXPECT_FALSE(cmds.empty()) << "a beat before its command";
        if (cmds.empty()) break;
        Cmd& c = cmds.front();
        const uint64_t data = req.data;
        const uint64_t strb = req.strb;
        for (int b = 0; b < bus; ++b) {
          if (!((strb >> b) & 1)) continue;
          const uint64_t a = c.next + uint64_t(b);
          EXPECT_TRUE(a >= c.addr && a < c.addr + c.bytes) << "strobe outside the row at byte " << a;
          dram[a - kDramBase] = uint8_t(data >> (8 * b));
        }
        c.next += uint64_t(bus);
        EXPECT_EQ(req.last, c.next == c.end) << "wlast on the wrong beat";
        if (c.next == c.end) {
          cmds.pop_front();
          acks.push_back(stalls ? int(rng_() % 5) : 0);
        }
      }
      h_.tick();
    }
    EXPECT_FALSE(h_->busy_o) << "the store did not finish";
    EXPECT_EQ(acked, size_t(s.y)) << "pending dropped before every acknowledgement";
    EXPECT_TRUE(dram == want) << "DRAM image differs";
    return cycles;
  }

 private:
  static inline const std::vector<int> kMemWidths = {3, 16, 32, 16, 16, 16, 4, 4, 4, 4};

  void set_elem(uint32_t addr) {
    const uint8_t* e = sram_.data() + size_t(addr) * elem_;
    if constexpr (sizeof(h_->sram_rdata_i) <= 8) {
      uint64_t v = 0;
      for (int i = 0; i < elem_; ++i) v |= uint64_t(e[i]) << (8 * i);
      using Port = std::decay_t<decltype(h_->sram_rdata_i)>;
      h_->sram_rdata_i = static_cast<Port>(v);
    } else {
      for (int i = 0; i < elem_ / 4; ++i) {
        h_->sram_rdata_i[i] = uint32_t(e[4 * i]) | uint32_t(e[4 * i + 1]) << 8 | uint32_t(e[4 * i + 2]) << 16 |
                              uint32_t(e[4 * i + 3]) << 24;
      }
    }
  }

  int elem_;
  std::mt19937 rng_;
  std::vector<uint8_t> sram_;
  Harness<M> h_;
};

template <class M>
void random_stores(int elem) {
  TensorStoreTest<M> t(elem, 5);
  std::mt19937 rng(13);
  for (int n = 0; n < 80; ++n) {
    Store s{};
    s.x = 1 + rng() % 7, s.y = 1 + rng() % 4, s.stride = s.x + rng() % 4;
    s.sram_base = rng() % (256 - s.x * s.y);
    s.dram_base = uint32_t(kDramBase / uint64_t(elem)) + rng() % 64;
    SCOPED_TRACE("store " + std::to_string(n));
    t.run(s, n % 2 == 1);
  }
}

TEST(HwTensorStore, ElementsOfTwoBeats) { random_stores<Vvta_ts_e16>(16); }
TEST(HwTensorStore, ElementsOfOneBeat) { random_stores<Vvta_ts_e8>(8); }
TEST(HwTensorStore, ElementsNarrowerThanTheBus) { random_stores<Vvta_ts_e4>(4); }

TEST(HwTensorStore, StreamsOneBeatPerCycleWithoutStalls) {
  TensorStoreTest<Vvta_ts_e16> t(16, 3);
  // 2 rows of 40 elements, 2 beats each: 160 beats.
  const int cycles = t.run(Store{0, uint32_t(kDramBase / 16), 2, 40, 40}, false);
  EXPECT_LE(cycles, 160 + 8);
}

}  // namespace
}  // namespace vta::test
