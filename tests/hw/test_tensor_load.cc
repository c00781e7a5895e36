// vta_tensor_load against the spec's LOAD semantics (3.2, 3.3), with a C++ memory model that accepts
// commands and returns beats with random delays: every SRAM position of the padded block is written
// exactly once, with zeros in the pads and the DRAM elements (sign-extended for ACC_8BIT) elsewhere.

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <random>

#include "Vvta_tl_acc8.h"
#include "Vvta_tl_inp.h"
#include "Vvta_tl_uop.h"
#include "Vvta_tl_wgt.h"
#include "mem_port.h"
#include "sim_harness.h"
#include "vta/driver/build_config.h"

namespace vta::test {
namespace {

constexpr uint64_t kDramBase = 0x10000;  // byte address of the model memory
constexpr size_t kDramBytes = 1 << 18;

struct Load {
  uint32_t sram_base, dram_base, y, x, stride, yp0, yp1, xp0, xp1;
};

template <class M>
class TensorLoadTest {
 public:
  TensorLoadTest(int elem_bytes, int sram_bytes, bool widen, uint32_t seed)
      : elem_(elem_bytes), sram_bytes_(sram_bytes), widen_(widen), rng_(seed), dram_(kDramBytes) {
    for (auto& b : dram_) b = uint8_t(rng_());
    h_->start_i = 0;
    set_rd_rsp(h_->mem_rsp_i, false, false, 0);
    h_.reset();
  }

  // Runs one load; returns the cycle count. Fails the test on any mismatch.
  int run(const Load& l, bool stalls) {
    const auto lsb = packed_lsbs(kMemWidths);
    const uint64_t fields[] = {2, l.sram_base, l.dram_base, l.y, l.x, l.stride, l.yp0, l.yp1, l.xp0, l.xp1};
    for (size_t f = 0; f < kMemWidths.size(); ++f) set_bits(h_->insn_i, lsb[f], kMemWidths[f], fields[f]);
    h_->start_i = 1;
    h_.tick();
    h_->start_i = 0;
    std::map<uint32_t, std::vector<uint8_t>> writes;
    std::deque<std::vector<uint8_t>> beats;  // beats of accepted commands, in order
    const int bus = int(build_config().bus_width() / 8);
    int cycles = 1, latency = 0;
    for (; h_->busy_o && cycles < 200000; ++cycles) {
      const bool cmd_ready = !stalls || rng_() % 3 != 0;
      const bool data_valid = !beats.empty() && latency == 0 && (!stalls || rng_() % 4 != 0);
      set_rd_rsp(h_->mem_rsp_i, cmd_ready, data_valid, data_valid ? beat(beats.front()) : 0);
      h_.eval();
      const RdReq req = RdReq::of(h_->mem_req_o);
      if (req.cmd_valid && cmd_ready) {
        const uint64_t addr = req.cmd.addr, bytes = req.cmd.bytes;
        EXPECT_EQ(bytes, uint64_t(l.x) * elem_);
        const uint64_t first = addr / bus * bus, last = (addr + bytes + bus - 1) / bus * bus;
        for (uint64_t a = first; a < last; a += bus) {
          EXPECT_GE(a, kDramBase);
          EXPECT_LE(a + bus, kDramBase + kDramBytes);
          beats.emplace_back(dram_.begin() + long(a - kDramBase), dram_.begin() + long(a - kDramBase + bus));
        }
        if (stalls) latency = int(rng_() % 4);
      }
      if (data_valid && req.data_ready) beats.pop_front();
      if (latency > 0) --latency;
      if (h_->sram_we_o) {
        const uint32_t a = h_->sram_waddr_o;
        EXPECT_EQ(writes.count(a), 0u) << "SRAM element " << a << " written twice";
        writes[a] = sram_word();
      }
      h_.tick();
    }
    EXPECT_FALSE(h_->busy_o) << "the load did not finish";
    EXPECT_TRUE(beats.empty()) << "beats left unread";
    check(l, writes);
    return cycles;
  }

 private:
  static inline const std::vector<int> kMemWidths = {3, 16, 32, 16, 16, 16, 4, 4, 4, 4};

  // The default 64-bit bus: one beat is one 64-bit value.
  static uint64_t beat(const std::vector<uint8_t>& b) {
    static_assert(kBusBits == 64, "this test drives a 64-bit memory bus");
    uint64_t v = 0;
    for (size_t i = 0; i < b.size() && i < 8; ++i) v |= uint64_t(b[i]) << (8 * i);
    return v;
  }

  std::vector<uint8_t> sram_word() {
    std::vector<uint8_t> out(static_cast<size_t>(sram_bytes_));
    for (int i = 0; i < sram_bytes_; ++i) out[size_t(i)] = uint8_t(word_byte(h_->sram_wdata_o, i));
    return out;
  }

  template <class T>
  static uint32_t word_byte(const T& w, int i) {
    if constexpr (std::is_integral_v<T>) {
      return uint32_t((uint64_t(w) >> (8 * i)) & 0xff);
    } else {
      return (w[i / 4] >> (8 * (i % 4))) & 0xff;
    }
  }

  void check(const Load& l, const std::map<uint32_t, std::vector<uint8_t>>& writes) {
    const uint32_t cols = l.xp0 + l.x + l.xp1, rows = l.yp0 + l.y + l.yp1;
    ASSERT_EQ(writes.size(), size_t(cols) * rows);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < cols; ++c) {
        const uint32_t a = l.sram_base + r * cols + c;
        auto it = writes.find(a);
        ASSERT_NE(it, writes.end()) << "element " << a << " not written";
        std::vector<uint8_t> want(static_cast<size_t>(sram_bytes_), 0);
        if (r >= l.yp0 && r < l.yp0 + l.y && c >= l.xp0 && c < l.xp0 + l.x) {
          const uint64_t byte =
              (uint64_t(l.dram_base) + uint64_t(r - l.yp0) * l.stride + (c - l.xp0)) * elem_ - kDramBase;
          for (int i = 0; i < elem_; ++i) {
            const uint8_t v = dram_[byte + size_t(i)];
            if (widen_) {
              const int32_t ext = int8_t(v);
              std::memcpy(&want[size_t(i) * 4], &ext, 4);
            } else {
              want[size_t(i)] = v;
            }
          }
        }
        ASSERT_EQ(it->second, want) << "element " << a << " (row " << r << ", col " << c << ")";
      }
  }

  int elem_, sram_bytes_;
  bool widen_;
  std::mt19937 rng_;
  std::vector<uint8_t> dram_;
  Harness<M> h_;
};

template <class M>
void random_loads(int elem, int sram_bytes, bool widen, uint32_t depth) {
  TensorLoadTest<M> t(elem, sram_bytes, widen, 7);
  std::mt19937 rng(9);
  const uint32_t base_elem = uint32_t(kDramBase / uint64_t(elem));
  for (int n = 0; n < 60; ++n) {
    Load l{};
    l.x = 1 + rng() % 6, l.y = rng() % 4, l.stride = l.x + rng() % 5;
    if (rng() % 5 == 0) l.stride = 1 + rng() % l.x;  // overlapping rows read the same data again
    l.xp0 = rng() % 3, l.xp1 = rng() % 3, l.yp0 = rng() % 3, l.yp1 = rng() % 3;
    l.dram_base = base_elem + rng() % 64;
    const uint32_t block = (l.xp0 + l.x + l.xp1) * (l.yp0 + l.y + l.yp1);
    l.sram_base = rng() % (depth - block);
    SCOPED_TRACE("load " + std::to_string(n));
    t.run(l, n % 2 == 1);
  }
}

TEST(HwTensorLoad, InputElementsWiderThanTheBus) { random_loads<Vvta_tl_inp>(16, 16, false, 256); }
TEST(HwTensorLoad, WeightElementsOfManyBeats) { random_loads<Vvta_tl_wgt>(256, 256, false, 64); }
TEST(HwTensorLoad, MicroOpsNarrowerThanTheBus) { random_loads<Vvta_tl_uop>(4, 4, false, 256); }
TEST(HwTensorLoad, Acc8BitIsSignExtended) { random_loads<Vvta_tl_acc8>(16, 64, true, 256); }

TEST(HwTensorLoad, StreamsOneElementPerCycleWithoutStalls) {
  TensorLoadTest<Vvta_tl_uop> t(4, 4, false, 3);
  // 4 rows of 32 micro-ops: one SRAM write per cycle (two per 8-byte beat).
  const int cycles = t.run(Load{0, uint32_t(kDramBase / 4), 4, 32, 32, 0, 0, 0, 0}, false);
  EXPECT_LE(cycles, 4 * 32 + 6);
}

}  // namespace
}  // namespace vta::test
