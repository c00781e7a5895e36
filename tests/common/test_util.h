#pragma once
// Test helpers: device buffers, an instruction-stream builder, and a reader for tiles in DRAM.

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "test_paths.h"
#include "vta/driver/device.h"
#include "vta/driver/fsim.h"
#include "vta/driver/isa.h"
#include "vta/driver/memory.h"
#include "vta/driver/random_program.h"

namespace vta::test {

// Sets an environment variable for one scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  const char* name_;
  std::string old_;
  bool had_ = false;
};

/// A backend's name as a test's ("rpc-fsim" -> "rpc_fsim"), for suites instantiated over backend_names().
inline std::string backend_test_name(const ::testing::TestParamInfo<std::string>& p) {
  std::string name = p.param;
  for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

/// A zero-filled device buffer in the global physical memory, freed on destruction.
using DevBuf = DramBuffer;

/// Builds an instruction stream with the encoder and runs it on a device.
class Program {
 public:
  explicit Program(const Config& c) : isa_(c) {}
  const Isa& isa() const { return isa_; }

  Program& load(MemId type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride, DepFlags deps = {},
                uint32_t yp0 = 0, uint32_t yp1 = 0, uint32_t xp0 = 0, uint32_t xp1 = 0) {
    MemInsn m;
    m.opcode = static_cast<uint8_t>(Opcode::kLoad);
    m.deps = deps;
    m.memory_type = static_cast<uint8_t>(type);
    m.sram_base = sram, m.dram_base = dram, m.y_size = y, m.x_size = x, m.x_stride = stride;
    m.y_pad_0 = yp0, m.y_pad_1 = yp1, m.x_pad_0 = xp0, m.x_pad_1 = xp1;
    return raw(isa_.encode(m));
  }
  Program& store(uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride, DepFlags deps = {}) {
    MemInsn m;
    m.opcode = static_cast<uint8_t>(Opcode::kStore);
    m.deps = deps;
    m.memory_type = static_cast<uint8_t>(MemId::kOut);
    m.sram_base = sram, m.dram_base = dram, m.y_size = y, m.x_size = x, m.x_stride = stride;
    return raw(isa_.encode(m));
  }
  Program& gemm(GemmInsn g) { return raw(isa_.encode(g)); }
  Program& alu(AluInsn a) { return raw(isa_.encode(a)); }
  Program& finish(DepFlags deps = {}) {
    GemmInsn g;
    g.opcode = static_cast<uint8_t>(Opcode::kFinish);
    g.deps = deps;
    return raw(isa_.encode(g));
  }
  Program& raw(RawInsn r) {
    insns_.push_back(r);
    return *this;
  }
  const std::vector<RawInsn>& insns() const { return insns_; }

  /// Copies the stream into device memory and runs it.
  RunStatus run(Device& dev, uint64_t budget = 0) const {
    const DevBuf buf = to_device();
    return dev.run(buf.phys(), static_cast<uint32_t>(insns_.size()), budget);
  }
  /// The stream in a device buffer of its own.
  DevBuf to_device() const {
    DevBuf buf(std::max<size_t>(insns_.size(), 1) * Config::kInsnElemBytes);
    store_insns(buf.data(), insns_);
    return buf;
  }

 private:
  Isa isa_;
  std::vector<RawInsn> insns_;
};

/// Writes micro-ops into a device buffer.
inline void put_uops(const Isa& isa, const DevBuf& buf, const std::vector<Uop>& uops) {
  for (size_t i = 0; i < uops.size(); ++i) buf.as<uint32_t>()[i] = isa.encode(uops[i]);
}

/// A program that loads the first `n` micro-ops of `uops`, runs `body(program)`, then FINISH.
template <class F>
Program with_uops(const Config& c, const DevBuf& uops, uint32_t n, F&& body) {
  Program p(c);
  p.load(MemId::kUop, 0, uint32_t(uops.phys() / 4), 1, n, n);
  body(p);
  p.finish();
  return p;
}

/// A deadlock: a GEMM waits for a load -> compute token the load never pushes, a store behind it
/// waits for the GEMM (`inp_base` is the DRAM base of a 16-byte-element buffer).
inline Program deadlocking_program(const Config& c, uint32_t inp_base) {
  GemmInsn g;
  g.uop_bgn = 0, g.uop_end = 1, g.iter_out = 1, g.iter_in = 1;
  g.deps.pop_prev = true;
  Program p(c);
  p.load(MemId::kInp, 0, inp_base, 1, 1, 1).gemm(g).store(0, inp_base, 1, 1, 1, {true, false, false, false}).finish();
  return p;
}

inline DepFlags pop_prev() { return {true, false, false, false}; }
inline DepFlags pop_next() { return {false, true, false, false}; }
inline DepFlags push_prev() { return {false, false, true, false}; }
inline DepFlags push_next() { return {false, false, false, true}; }

inline std::unique_ptr<FsimDevice> make_test_fsim(const Config& c, FsimKernel kernel = FsimKernel::kAuto) {
  DeviceOptions o;
  o.fsim_kernel = kernel;
  return std::make_unique<FsimDevice>(c, o);
}

/// A fixture with an fsim of the default configuration (the fsim's own behaviour, not a backend's).
class DefaultFsimTest : public ::testing::Test {
 protected:
  Config cfg_ = Config::default_config();
  std::unique_ptr<FsimDevice> dev_ = make_test_fsim(cfg_);
};

inline void fill_random(std::span<int8_t> v, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
}

inline GemmInsn gemm_insn(uint32_t bgn, uint32_t end, uint32_t iter_out = 1, uint32_t iter_in = 1) {
  GemmInsn g;
  g.uop_bgn = bgn, g.uop_end = end, g.iter_out = iter_out, g.iter_in = iter_in;
  return g;
}

inline AluInsn alu_insn(AluOp op, uint32_t bgn, uint32_t end, bool use_imm, int32_t imm, uint32_t iter_out = 1,
                        uint32_t iter_in = 1) {
  AluInsn a;
  a.alu_opcode = static_cast<uint8_t>(op);
  a.uop_bgn = bgn, a.uop_end = end, a.use_imm = use_imm, a.imm = imm, a.iter_out = iter_out, a.iter_in = iter_in;
  return a;
}

/// Sample configurations shipped in config/samples: the shapes and the element widths (int4 weights,
/// inputs or both).
inline std::vector<std::string> sample_config_paths() {
  std::vector<std::string> paths;
  for (const char* name : {"default_1x16", "batch2", "block8", "block32", "w4a8", "w8a4", "w4a4"})
    paths.push_back(source_path("config/samples") / (std::string(name) + ".json"));
  return paths;
}

}  // namespace vta::test
