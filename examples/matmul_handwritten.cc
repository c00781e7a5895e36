// The matrix-multiply blocking tutorial (1x1024 input, 1024x1024 weights, tiles of 256 channels,
// >> 8 then clip to [0, 127]) written directly as a VTA instruction stream and run through the C
// driver API on the backend named by VTA_TARGET. Every output is checked against a plain C++
// reference, and the seven statistics are printed in the seeds' format next to the tutorial's numbers.
//
// The stream follows the tutorial's final schedule (spec 8.1): for each of 4 output blocks, reset 16
// accumulator tiles, then for each of 4 input blocks load 16 input tiles and 16x16 weight tiles and
// run one GEMM micro-op in a 16 x 16 loop; then SHR 8, MAX 0, MIN 127 and store 16 output tiles.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "vta/driver.h"
#include "vta/driver/build_config.h"
#include "vta/driver/guarded_main.h"
#include "vta/driver/isa.h"
#include "vta/driver_ext.h"

namespace {

using namespace vta;

// Device memory from VTAMemAlloc, freed on scope exit.
struct DeviceBuffer {
  explicit DeviceBuffer(size_t bytes) : ptr(static_cast<uint8_t*>(VTAMemAlloc(bytes, VTA_CACHED))) {
    if (ptr == nullptr) throw std::runtime_error("VTAMemAlloc failed");
  }
  ~DeviceBuffer() { VTAMemFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  uint32_t base(uint32_t unit) const { return VTAMemGetPhyAddr(ptr) / unit; }
  uint8_t* ptr;
};

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"The matrix-multiply tutorial as a hand-written VTA instruction stream"};
  uint32_t seed = 0;
  bool json = false;
  app.add_option("--seed", seed, "seed of the random int8 inputs and weights");
  app.add_flag("--json", json, "also print the statistics as JSON");
  VTA_CLI_PARSE(app, argc, argv);

  const Config& cfg = build_config();
  if (cfg.batch() != 1 || cfg.block_in() != 16 || cfg.block_out() != 16) {
    std::fprintf(stderr, "this example is written for the default 1x16 configuration (built for %s)\n",
                 cfg.bitstream_name().c_str());
    return 2;
  }
  constexpr int kChannels = 1024, kTiles = kChannels / 16, kBlock = 16;  // 16 tiles = 256 channels
  constexpr int kBlocks = kTiles / kBlock;
  const Isa isa(cfg);

  // Data in the tiled DRAM layout: data (1, 64, 1, 16), weight (64, 64, 16, 16), output (1, 64, 1, 16).
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  DeviceBuffer data(kChannels), weight(size_t(kChannels) * kChannels), res(kChannels);
  auto* d = reinterpret_cast<int8_t*>(data.ptr);
  auto* w = reinterpret_cast<int8_t*>(weight.ptr);
  for (int i = 0; i < kChannels; ++i) d[i] = static_cast<int8_t>(dist(rng));
  for (size_t i = 0; i < size_t(kChannels) * kChannels; ++i) w[i] = static_cast<int8_t>(dist(rng));

  // Micro-op kernels: 0 reset, 1 GEMM update, 2..4 the three ALU ops (all the same single uop here).
  const std::vector<Uop> uops = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  DeviceBuffer uop_buf(uops.size() * 4);
  for (size_t i = 0; i < uops.size(); ++i) {
    const uint32_t word = isa.encode(uops[i]);
    std::memcpy(uop_buf.ptr + 4 * i, &word, 4);
  }

  std::vector<RawInsn> s;
  auto mem = [&](Opcode op, MemId type, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride,
                 DepFlags deps) {
    MemInsn m;
    m.opcode = static_cast<uint8_t>(op), m.memory_type = static_cast<uint8_t>(type), m.deps = deps;
    m.sram_base = sram, m.dram_base = dram, m.y_size = y, m.x_size = x, m.x_stride = stride;
    s.push_back(isa.encode(m));
  };
  auto alu = [&](uint32_t k, AluOp op, int32_t imm, DepFlags deps) {
    AluInsn a;
    a.alu_opcode = static_cast<uint8_t>(op), a.use_imm = true, a.imm = imm, a.deps = deps;
    a.uop_bgn = k, a.uop_end = k + 1, a.iter_out = 1, a.iter_in = kBlock, a.dst_factor_in = 1, a.src_factor_in = 1;
    s.push_back(isa.encode(a));
  };
  mem(Opcode::kLoad, MemId::kUop, 0, uop_buf.base(4), 1, uint32_t(uops.size()), uint32_t(uops.size()), {});
  for (int oc = 0; oc < kBlocks; ++oc) {
    GemmInsn reset;
    reset.reset = true, reset.uop_bgn = 0, reset.uop_end = 1, reset.iter_out = kBlock, reset.iter_in = 1;
    reset.dst_factor_out = 1;
    reset.deps.pop_next = oc > 0;  // the previous block's store is done with the accumulators
    s.push_back(isa.encode(reset));
    for (int ic = 0; ic < kBlocks; ++ic) {
      const bool first = oc == 0 && ic == 0, last = oc == kBlocks - 1 && ic == kBlocks - 1;
      mem(Opcode::kLoad, MemId::kInp, 0, data.base(16) + uint32_t(ic * kBlock), 1, kBlock, kBlock,
          DepFlags{false, !first, false, false});
      mem(Opcode::kLoad, MemId::kWgt, 0, weight.base(256) + uint32_t(oc * kBlock * kTiles + ic * kBlock), kBlock,
          kBlock, kTiles, DepFlags{false, false, false, true});
      GemmInsn g;
      g.uop_bgn = 1, g.uop_end = 2, g.iter_out = kBlock, g.iter_in = kBlock;
      g.dst_factor_out = 1, g.wgt_factor_out = kBlock, g.src_factor_in = 1, g.wgt_factor_in = 1;
      g.deps = {true, false, !last, false};
      s.push_back(isa.encode(g));
    }
    alu(2, AluOp::kShr, 8, {});
    alu(3, AluOp::kMax, 0, {});
    alu(4, AluOp::kMin, 127, DepFlags{false, false, false, true});
    mem(Opcode::kStore, MemId::kOut, 0, res.base(16) + uint32_t(oc * kBlock), 1, kBlock, kBlock,
        DepFlags{true, false, true, false});
  }
  GemmInsn finish;
  finish.opcode = static_cast<uint8_t>(Opcode::kFinish), finish.deps.pop_next = true;
  s.push_back(isa.encode(finish));

  DeviceBuffer insns(s.size() * Config::kInsnElemBytes);
  store_insns(insns.ptr, s);

  VTADeviceHandle dev = VTADeviceAlloc();
  if (dev == nullptr) return 1;
  const int rc = VTADeviceRun(dev, VTAMemGetPhyAddr(insns.ptr), uint32_t(s.size()), 1u << 31);
  if (rc != VTA_RUN_OK) {
    VTADeviceFree(dev);
    return 1;
  }

  // Reference: int32 dot products, arithmetic shift by 8, clip to [0, 127].
  int mismatches = 0;
  for (int o = 0; o < kChannels; ++o) {
    int32_t sum = 0;
    for (int c = 0; c < kChannels; ++c) {
      sum += int32_t(d[c]) * int32_t(w[(size_t(o / 16) * kTiles + c / 16) * 256 + (o % 16) * 16 + c % 16]);
    }
    const int32_t want = std::min(std::max(sum >> 8, 0), 127);
    mismatches += reinterpret_cast<int8_t*>(res.ptr)[o] != want;
  }
  VTAStats st;
  VTADeviceGetStats(dev, &st);
  std::printf("matrix multiply 1x1024 x 1024x1024 on %s: %zu instructions, %d of %d outputs wrong\n",
              VTADeviceTarget(dev), s.size(), mismatches, kChannels);
  std::printf("Execution statistics:      (tutorial)\n");
  const struct {
    const char* name;
    uint64_t value, tutorial;
  } rows[] = {{"inp_load_nbytes", st.inp_load_nbytes, 4096},
              {"wgt_load_nbytes", st.wgt_load_nbytes, 1048576},
              {"acc_load_nbytes", st.acc_load_nbytes, 0},
              {"uop_load_nbytes", st.uop_load_nbytes, 20},
              {"out_store_nbytes", st.out_store_nbytes, 1024},
              {"gemm_counter", st.gemm_counter, 4096},
              {"alu_counter", st.alu_counter, 192}};
  bool stats_match = true;
  for (const auto& r : rows) {
    std::printf("\t%-17s: %8llu   (%llu)\n", r.name, static_cast<unsigned long long>(r.value),
                static_cast<unsigned long long>(r.tutorial));
    stats_match = stats_match && r.value == r.tutorial;
  }
  if (json) {
    char buf[512];
    VTADeviceStatsJson(dev, buf, sizeof buf);
    std::printf("%s\n", buf);
  }
  VTADeviceFree(dev);
  std::printf("%s\n",
              mismatches == 0 && stats_match ? "PASS: outputs verified, statistics equal the tutorial's" : "FAIL");
  return mismatches == 0 && stats_match ? 0 : 1;
}

int main(int argc, char** argv) {
  return vta::guarded_main("vta_matmul_handwritten", [&] { return run(argc, argv); });
}
