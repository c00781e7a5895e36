// The C driver API (vta/driver.h + vta/driver_ext.h): memory contracts, run status codes, statistics,
// diagnostics and backend selection.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "test_util.h"
#include "vta/driver.h"
#include "vta/driver/build_config.h"
#include "vta/driver_ext.h"
#include "vta/hw_spec.h"

namespace vta {
namespace {

TEST(DriverApi, MemAllocContracts) {
  void* a = VTAMemAlloc(100, VTA_CACHED);
  void* b = VTAMemAlloc(3 * VTA_PAGE_BYTES + 1, VTA_NOT_CACHED);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % VTA_PAGE_BYTES, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % VTA_PAGE_BYTES, 0u);
  const vta_phy_addr_t pa = VTAMemGetPhyAddr(a), pb = VTAMemGetPhyAddr(b);
  EXPECT_NE(pa, 0u);
  EXPECT_NE(pb, 0u);
  EXPECT_EQ(pa % VTA_PAGE_BYTES, 0u);
  EXPECT_EQ(pb % VTA_PAGE_BYTES, 0u);
  // Physically contiguous: interior pointers map linearly; the two buffers do not overlap.
  EXPECT_EQ(VTAMemGetPhyAddr(static_cast<char*>(b) + 12000), pb + 12000);
  EXPECT_EQ(VTAMemGetPhyAddr(static_cast<char*>(b) + 12345), 0u) << "past the 12289 requested bytes";
  EXPECT_TRUE(pb >= pa + VTA_PAGE_BYTES || pa >= pb + 4 * VTA_PAGE_BYTES);
  EXPECT_EQ(static_cast<uint8_t*>(b)[3 * VTA_PAGE_BYTES], 0) << "allocations are zero-filled";
  int host = 0;
  EXPECT_EQ(VTAMemGetPhyAddr(&host), 0u) << "host memory has no physical address";
  const char msg[] = "hello";
  VTAMemCopyFromHost(a, msg, sizeof msg);
  char back[sizeof msg];
  VTAMemCopyToHost(back, a, sizeof msg);
  EXPECT_STREQ(back, msg);
  VTAFlushCache(a, pa, 100);
  VTAInvalidateCache(a, pa, 100);
  VTAMemFree(a);
  VTAMemFree(b);
  VTAMemFree(nullptr);
  EXPECT_EQ(VTAMemAlloc(0, VTA_CACHED), nullptr);
}

TEST(DriverApi, FreedPagesAreReusedAndMerged) {
  Dram dram(20);  // a 1 MiB physical space: 255 usable pages
  std::vector<void*> blocks;
  blocks.reserve(5);
  for (int i = 0; i < 5; ++i) blocks.push_back(dram.alloc(50 * Dram::kPageBytes));
  EXPECT_EQ(dram.alloc(10 * Dram::kPageBytes), nullptr) << "5 x 50 pages leave only 5";
  for (void* b : blocks) EXPECT_TRUE(dram.free(b));
  EXPECT_FALSE(dram.free(blocks[0])) << "double free is refused";
  void* big = dram.alloc(255 * Dram::kPageBytes);
  ASSERT_NE(big, nullptr) << "freed neighbours merge back into one run";
  EXPECT_EQ(dram.phys_addr(big), PhysAddr{Dram::kPageBytes});
  EXPECT_TRUE(dram.free(big));
  EXPECT_EQ(dram.live_blocks(), 0u);
}

// alloc_at places an allocation at a chosen physical address (the remote device mirrors a client's
// buffers with it): only on free pages, page-aligned, inside the physical space; the rest stays usable.
TEST(DriverApi, AllocAtTakesExactlyThePagesAsked) {
  Dram dram(20);  // pages at 0x1000 .. 0xff000
  auto* a = static_cast<uint8_t*>(dram.alloc_at(0x5000, 3 * Dram::kPageBytes + 1));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(dram.phys_addr(a), PhysAddr{0x5000});
  EXPECT_EQ(dram.block_at(0x5000)->size, 3 * Dram::kPageBytes + 1);
  EXPECT_EQ(dram.alloc_at(0x8000, 1), nullptr) << "the fourth page belongs to the first block";
  EXPECT_EQ(dram.alloc_at(0x4000, 2 * Dram::kPageBytes), nullptr) << "overlaps the first block";
  EXPECT_EQ(dram.alloc_at(0x9001, 1), nullptr) << "not page-aligned";
  EXPECT_EQ(dram.alloc_at(0, 1), nullptr) << "address 0 is never valid";
  EXPECT_EQ(dram.alloc_at(0xff000, 2 * Dram::kPageBytes), nullptr) << "past the physical space";
  EXPECT_EQ(dram.alloc_at(uint64_t{1} << 40, 1), nullptr);
  void* low = dram.alloc_at(0x1000, 4 * Dram::kPageBytes);  // fills the hole before the first block
  ASSERT_NE(low, nullptr);
  void* next = dram.alloc(Dram::kPageBytes);
  EXPECT_EQ(dram.phys_addr(next), PhysAddr{0x9000}) << "first fit goes on after the placed blocks";
  void* last = dram.alloc_at(0xff000, 1);
  ASSERT_NE(last, nullptr);
  for (void* p : {static_cast<void*>(a), low, next, last}) EXPECT_TRUE(dram.free(p));
  EXPECT_NE(dram.alloc(255 * Dram::kPageBytes), nullptr) << "the freed runs merge back into one";
}

TEST(DriverApi, ReusedPagesAreZero) {
  Dram dram(24);
  // freed pages wait to be given back (small frees) or are given back at once (large ones); either
  // way an allocation reads as zero, also when it spans both kinds
  for (size_t first : {size_t{3}, size_t{1}, Dram::kDirtyLimit / Dram::kPageBytes + 2}) {
    auto* a = static_cast<uint8_t*>(dram.alloc(first * Dram::kPageBytes));
    ASSERT_NE(a, nullptr);
    std::memset(a, 0xff, first * Dram::kPageBytes);
    ASSERT_TRUE(dram.free(a));
    const size_t n = (first + 2) * Dram::kPageBytes;
    auto* b = static_cast<uint8_t*>(dram.alloc(n));
    ASSERT_EQ(b, a) << "first fit reuses the freed pages";
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(b[i], 0) << "byte " << i << " after a free of " << first << " pages";
    std::memset(b, 0xee, n);
    ASSERT_TRUE(dram.free(b));
  }
  EXPECT_EQ(dram.live_blocks(), 0u);
}

TEST(DriverApi, PhysicalAddressesAre32Bit) {
  static_assert(sizeof(vta_phy_addr_t) == 4);
  void* a = VTAMemAlloc(1 << 20, VTA_CACHED);
  EXPECT_LT(uint64_t(VTAMemGetPhyAddr(a)) + (1 << 20), uint64_t{1} << 32);
  VTAMemFree(a);
}

// acc_bytes hand-written program through the C API only: ADD an immediate to an accumulator tile and store.
TEST(DriverApi, RunStatsAndJson) {
  VTADeviceHandle dev = VTADeviceAlloc();
  ASSERT_NE(dev, nullptr);
  EXPECT_STREQ(VTADeviceTarget(dev), "fsim");
  const int lanes = VTA_BATCH * VTA_BLOCK_OUT;
  auto* insns = static_cast<VTAInsn*>(VTAMemAlloc(4 * sizeof(VTAInsn), VTA_CACHED));
  auto* uops = static_cast<VTAUop*>(VTAMemAlloc(sizeof(VTAUop), VTA_CACHED));
  auto* acc = static_cast<int32_t*>(VTAMemAlloc(VTA_ACC_ELEM_BYTES, VTA_CACHED));
  auto* out = static_cast<int8_t*>(VTAMemAlloc(VTA_OUT_ELEM_BYTES, VTA_CACHED));
  for (int i = 0; i < lanes; ++i) acc[i] = i * 3;
  std::memset(insns, 0, 4 * sizeof(VTAInsn));
  std::memset(uops, 0, sizeof(VTAUop));
  insns[0].mem.opcode = VTA_OPCODE_LOAD;
  insns[0].mem.memory_type = VTA_MEM_ID_UOP;
  insns[0].mem.dram_base = VTAMemGetPhyAddr(uops) / VTA_UOP_ELEM_BYTES;
  insns[0].mem.y_size = insns[0].mem.x_size = insns[0].mem.x_stride = 1;
  insns[1] = insns[0];
  insns[1].mem.memory_type = VTA_MEM_ID_ACC;
  insns[1].mem.dram_base = VTAMemGetPhyAddr(acc) / VTA_ACC_ELEM_BYTES;
  insns[2].alu.opcode = VTA_OPCODE_ALU;
  insns[2].alu.alu_opcode = VTA_ALU_OPCODE_ADD;
  insns[2].alu.use_imm = 1;
  insns[2].alu.imm = -5;
  insns[2].alu.uop_end = 1;
  insns[2].alu.iter_out = insns[2].alu.iter_in = 1;
  insns[2].alu.push_next_dep = 1;
  insns[3].mem.opcode = VTA_OPCODE_STORE;
  insns[3].mem.memory_type = VTA_MEM_ID_OUT;
  insns[3].mem.dram_base = VTAMemGetPhyAddr(out) / VTA_OUT_ELEM_BYTES;
  insns[3].mem.y_size = insns[3].mem.x_size = insns[3].mem.x_stride = 1;
  insns[3].mem.pop_prev_dep = 1;
  insns[3].mem.push_prev_dep = 1;
  auto* prog = static_cast<VTAInsn*>(VTAMemAlloc(5 * sizeof(VTAInsn), VTA_CACHED));
  std::memcpy(prog, insns, 4 * sizeof(VTAInsn));
  std::memset(&prog[4], 0, sizeof(VTAInsn));
  prog[4].gemm.opcode = VTA_OPCODE_FINISH;
  prog[4].gemm.pop_next_dep = 1;

  EXPECT_EQ(VTADeviceRun(dev, VTAMemGetPhyAddr(prog), 5, 1000), VTA_RUN_OK);
  EXPECT_STREQ(VTADeviceGetLastError(dev), "");
  // lane i is i * 3 - 5 at the output width: a byte each at 8 bits, at 4 the low (even lanes) or high
  // nibble of byte i / 2 (docs/ISA.md), each the low bits of the value, sign-extended
  for (int i = 0; i < lanes; ++i) {
    const int bits = VTA_OUT_WIDTH, low = (i * 3 - 5) & ((1 << bits) - 1);
    const int want = low >= (1 << (bits - 1)) ? low - (1 << bits) : low;
    const int nibble = (static_cast<uint8_t>(out[i / 2]) >> (4 * (i % 2))) & 0xF;
    const int got = bits == 8 ? int{out[i]} : nibble >= 8 ? nibble - 16 : nibble;
    EXPECT_EQ(got, want) << "lane " << i;
  }
  VTAStats s;
  ASSERT_EQ(VTADeviceGetStats(dev, &s), 0);
  EXPECT_EQ(s.acc_load_nbytes, uint64_t(VTA_ACC_ELEM_BYTES));
  EXPECT_EQ(s.uop_load_nbytes, 4u);
  EXPECT_EQ(s.alu_counter, 1u);
  EXPECT_EQ(s.out_store_nbytes, uint64_t(VTA_OUT_ELEM_BYTES));
  EXPECT_EQ(s.gemm_counter, 0u);
  EXPECT_EQ(s.cycle_count, 0u);
  // Statistics accumulate across runs until cleared.
  EXPECT_EQ(VTADeviceRun(dev, VTAMemGetPhyAddr(prog), 5, 0), VTA_RUN_OK);
  VTADeviceGetStats(dev, &s);
  EXPECT_EQ(s.alu_counter, 2u);
  char json[512];
  const int n = VTADeviceStatsJson(dev, json, sizeof json);
  EXPECT_EQ(n, static_cast<int>(std::strlen(json)));
  EXPECT_NE(std::string(json).find("\"alu_counter\": 2"), std::string::npos) << json;
  char tiny[8];
  EXPECT_EQ(VTADeviceStatsJson(dev, tiny, sizeof tiny), n) << "returns the full length like snprintf";
  EXPECT_EQ(std::strlen(tiny), 7u);
  VTADeviceClearStats(dev);
  VTADeviceGetStats(dev, &s);
  EXPECT_EQ(s.alu_counter, 0u);

  // An error returns VTA_RUN_ERROR and keeps the diagnostic; a budget overrun is VTA_RUN_TIMEOUT.
  prog[2].alu.iter_in = 0;
  testing::internal::CaptureStderr();
  EXPECT_EQ(VTADeviceRun(dev, VTAMemGetPhyAddr(prog), 5, 0), VTA_RUN_ERROR);
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(std::string(VTADeviceGetLastError(dev)).find("zero iteration count"), std::string::npos);
  EXPECT_EQ(printed, VTADeviceGetLastError(dev)) << "the diagnostic is printed to stderr";
  prog[2].alu.iter_in = 1000;
  prog[2].alu.iter_out = 1000;
  testing::internal::CaptureStderr();
  EXPECT_EQ(VTADeviceRun(dev, VTAMemGetPhyAddr(prog), 5, 5000), VTA_RUN_TIMEOUT);
  testing::internal::GetCapturedStderr();

  for (void* p : {static_cast<void*>(insns), static_cast<void*>(uops), static_cast<void*>(acc), static_cast<void*>(out),
                  static_cast<void*>(prog)}) {
    VTAMemFree(p);
  }
  VTADeviceFree(dev);
}

TEST(DriverApi, NullHandlesAreHandled) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(VTADeviceRun(nullptr, 0, 1, 0), VTA_RUN_ERROR);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(VTADeviceGetStats(nullptr, nullptr), -1);
  EXPECT_EQ(VTADeviceStatsJson(nullptr, nullptr, 0), -1);
  EXPECT_STREQ(VTADeviceGetLastError(nullptr), "not a live device handle");
  VTADeviceClearStats(nullptr);
  VTADeviceFree(nullptr);
}

TEST(DriverApi, BackendSelection) {
  ASSERT_EQ(setenv("VTA_TARGET", "sim", 1), 0);
  VTADeviceHandle sim = VTADeviceAlloc();
  ASSERT_NE(sim, nullptr);
  EXPECT_STREQ(VTADeviceTarget(sim), "fsim");
  VTADeviceFree(sim);
  ASSERT_EQ(setenv("VTA_TARGET", "pynq-board", 1), 0);
  testing::internal::CaptureStderr();
  EXPECT_EQ(VTADeviceAlloc(), nullptr);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unknown VTA target \"pynq-board\" (known: fsim"), std::string::npos) << err;
  unsetenv("VTA_TARGET");
  EXPECT_THROW(make_device("nope", build_config()), std::invalid_argument);
  // acc_bytes backend registered at run time is found by name.
  register_backend("fsim-twin", [](const Config& c, const DeviceOptions& o) { return make_fsim(c, o); });
  EXPECT_NE(make_device("fsim-twin", build_config()), nullptr);
  const auto names = backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "fsim-twin"), names.end());
  // several devices at once (vta::network's steps at once): only a backend that says so, and not while
  // a waveform or captures are written
  EXPECT_TRUE(runs_concurrently("fsim"));
  EXPECT_TRUE(runs_concurrently("sim"));
  EXPECT_FALSE(runs_concurrently("fsim-twin"));
  EXPECT_FALSE(runs_concurrently("rpc://127.0.0.1:1"));
  register_concurrent_backend("fsim-twin");
  EXPECT_TRUE(runs_concurrently("fsim-twin"));
  for (const char* one_file : {"VTA_WAVE", "VTA_CAPTURE"}) {
    ASSERT_EQ(setenv(one_file, "/tmp/x", 1), 0);
    EXPECT_FALSE(runs_concurrently("fsim")) << one_file;
    unsetenv(one_file);
  }
  EXPECT_TRUE(runs_concurrently("fsim"));
}

}  // namespace
}  // namespace vta
