// Robustness: random, mostly malformed instruction streams. The simulator must always return one of
// its three statuses with a diagnostic on failure, stay within its budget, and never write outside the
// buffers the instructions name (a guard buffer between the data buffers must stay intact; the
// sanitizer build checks host memory too). VTA_FUZZ_ITERATIONS raises the count (default 10000).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "test_util.h"

namespace vta {
namespace {

using test::DevBuf;

class Fuzzer {
 public:
  // Half of the streams are well-formed field by field (they reach execution, DRAM checks, token
  // deadlocks and budgets); the other half corrupt about one field in four.
  Fuzzer(const Config& c, uint64_t seed, const DevBuf& data)
      : isa_(c), rng_(seed), data_(data), bad_permille_(seed % 2 == 0 ? 0 : 250) {}

  std::vector<RawInsn> stream() {
    const int n = 1 + int(rng_() % 24);
    std::vector<RawInsn> out;
    out.reserve(size_t(n) + 1);
    for (int i = 0; i < n; ++i) out.push_back(one());
    if (!bad()) {
      out.push_back(finish());
    } else if (rng_() % 2) {
      out.insert(out.begin() + long(rng_() % out.size()), finish());  // FINISH in the middle
    }                                                                 // else: no FINISH at all
    return out;
  }

 private:
  bool bad() { return uint32_t(rng_() % 1000) < bad_permille_; }
  uint32_t small(uint32_t max) { return uint32_t(rng_() % (max + 1)); }
  uint32_t field(uint32_t typical, int bits) {  // mostly small values, sometimes anything that fits
    return bad() ? uint32_t(rng_() & ((uint64_t{1} << bits) - 1)) : small(typical);
  }
  uint32_t count(uint32_t typical, int bits) { return bad() ? field(typical, bits) : 1 + small(typical - 1); }
  DepFlags deps() {
    if (rng_() % (bad_permille_ ? 3 : 10) != 0) return {};
    return {rng_() % 4 == 0, rng_() % 4 == 0, rng_() % 4 == 0, rng_() % 4 == 0};
  }
  // the loop fields GEMM and ALU share: micro-op range, iterations, destination and source factors
  // (the source indexing the input buffer for a GEMM, the accumulator for an ALU instruction)
  template <class Insn>
  void loop_fields(Insn& x, int src_log_depth) {
    const Config& c = isa_.config();
    x.uop_bgn = field(16, c.log_uop_depth());
    x.uop_end = x.uop_bgn + count(8, 4);
    if (x.uop_end >= (1u << (c.log_uop_depth() + 1))) x.uop_end = 1;
    x.iter_out = count(8, 14), x.iter_in = count(8, 14);
    x.dst_factor_out = field(16, c.log_acc_depth()), x.dst_factor_in = field(16, c.log_acc_depth());
    x.src_factor_out = field(16, src_log_depth), x.src_factor_in = field(16, src_log_depth);
  }
  RawInsn finish() {
    GemmInsn g;
    g.opcode = static_cast<uint8_t>(Opcode::kFinish);
    g.deps = deps();
    return isa_.encode(g);
  }
  RawInsn one() {
    const Config& c = isa_.config();
    switch (bad() ? rng_() % 6 : 1 + rng_() % 5) {
      case 0: return RawInsn{rng_(), rng_()};  // anything at all
      case 1:
      case 2: {
        MemInsn m;
        m.opcode = rng_() % 3 == 0 ? 1 : 0;
        m.deps = deps();
        static constexpr uint8_t kLoadTypes[] = {1, 2, 3, 5};
        m.memory_type = bad() ? uint8_t(rng_() % 8) : m.opcode == 1 ? uint8_t(4) : kLoadTypes[rng_() % 4];
        m.sram_base = field(64, 16);
        // Usually inside the data buffer (in units of the largest element), sometimes anywhere.
        const uint32_t unit_max = 256;
        m.dram_base = rng_() % 6 == 0 ? uint32_t(rng_()) : data_.base(unit_max) * (unit_max / 16) + small(300);
        if (m.memory_type == 1) m.dram_base = rng_() % 6 == 0 ? uint32_t(rng_()) : data_.base(256) + small(20);
        m.y_size = field(4, 16), m.x_size = field(8, 16), m.x_stride = field(16, 16);
        const bool pads = m.opcode == 0 || bad();
        m.y_pad_0 = pads * small(15) * (rng_() % 3 == 0), m.y_pad_1 = pads * small(15) * (rng_() % 3 == 0);
        m.x_pad_0 = pads * small(15) * (rng_() % 3 == 0), m.x_pad_1 = pads * small(15) * (rng_() % 3 == 0);
        return isa_.encode(m);
      }
      case 3: {
        GemmInsn g;
        g.deps = deps();
        g.reset = rng_() % 4 == 0;
        loop_fields(g, c.log_inp_depth());
        g.wgt_factor_out = field(16, c.log_wgt_depth()), g.wgt_factor_in = field(16, c.log_wgt_depth());
        return isa_.encode(g);
      }
      case 4: {
        AluInsn a;
        a.deps = deps();
        a.alu_opcode = uint8_t(rng_() % (bad() ? 8 : 5));
        a.use_imm = rng_() % 2;
        a.imm = int32_t(int16_t(rng_()));
        loop_fields(a, c.log_acc_depth());
        return isa_.encode(a);
      }
      default: {  // a LOAD UOP of random micro-ops from the data buffer
        MemInsn m;
        m.memory_type = static_cast<uint8_t>(MemId::kUop);
        m.deps = deps();
        m.sram_base = field(32, 13);
        m.dram_base = data_.base(4) + small(1000);
        m.y_size = 1, m.x_size = count(16, 16), m.x_stride = m.x_size;
        return isa_.encode(m);
      }
    }
  }

  Isa isa_;
  std::mt19937_64 rng_;
  const DevBuf& data_;
  uint32_t bad_permille_;
};

TEST(FsimFuzz, RandomStreamsNeverCrashHangOrEscape) {
  const char* env = std::getenv("VTA_FUZZ_ITERATIONS");
  const long iterations = env ? std::atol(env) : 10000;
  const Config cfg = Config::default_config();
  auto dev = test::make_test_fsim(cfg);
  // data: what the streams read and write; guard: never named by any stream, must stay intact.
  DevBuf data(256 * 1024), guard(64 * 1024), insns(32 * 16);
  std::mt19937 fill(1);
  for (size_t i = 0; i < data.size(); ++i) data.data()[i] = uint8_t(fill());
  std::memset(guard.data(), 0xa5, guard.size());
  const uint64_t kBudget = 200000;
  long counts[3] = {0, 0, 0};
  const auto t0 = std::chrono::steady_clock::now();
  for (long it = 0; it < iterations; ++it) {
    Fuzzer fz(cfg, 0x5eed0000 + uint64_t(it), data);
    const auto s = fz.stream();
    store_insns(insns.data(), s);
    const auto status = dev->run(insns.phys(), uint32_t(s.size()), kBudget);
    const int code = static_cast<int>(status);
    ASSERT_TRUE(code >= 0 && code <= 2) << "seed " << it;
    ++counts[code];
    if (status != RunStatus::kOk) {
      ASSERT_EQ(dev->last_error().rfind("vta fsim: ", 0), 0u) << "seed " << it << ": " << dev->last_error();
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < guard.size(); ++i) ASSERT_EQ(guard.data()[i], 0xa5) << "guard byte " << i << " was written";
  std::printf("fsim fuzz: %ld streams in %.2f s: %ld ok, %ld timeout, %ld error\n", iterations, secs, counts[0],
              counts[1], counts[2]);
  // The generator must exercise both outcomes, or it tests nothing.
  EXPECT_GT(counts[0], iterations / 10);
  EXPECT_GT(counts[2], iterations / 4);
}

}  // namespace
}  // namespace vta
