// The bad-input suite (label `badinput`, also run under ASan/UBSan): misuse of the driver and
// runtime C APIs as an attacker or a careless program would do it. Each test pins a defect that once
// corrupted host memory, aborted the process or gave a wrong answer with a success code; the rule
// checked everywhere is that bad input gets a named error and nothing else happens.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "test_paths.h"
#include "test_util.h"
#include "vta/driver.h"
#include "vta/driver/build_config.h"
#include "vta/driver/file.h"
#include "vta/driver_ext.h"
#include "vta/runtime.h"
#include "vta/runtime/command_queue.h"
#include "vta/runtime/tensor.h"

namespace vta {
namespace {

using test::DevBuf;
using test::Program;
using test::ScopedEnv;

// Captures stderr around a block and returns it.
template <class F>
std::string stderr_of(F&& f) {
  testing::internal::CaptureStderr();
  f();
  return testing::internal::GetCapturedStderr();
}

size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * size_t(sysconf(_SC_PAGESIZE));
}

// ---- 1. sizes near SIZE_MAX ------------------------------------------------------------------------

TEST(BadInput, ImpossibleAllocationSizesFailWithAMessage) {
  for (size_t size : {SIZE_MAX, SIZE_MAX - 4095, size_t(-5), size_t{1} << 40, size_t{0}}) {
    const std::string err = stderr_of([&] { EXPECT_EQ(VTAMemAlloc(size, VTA_CACHED), nullptr) << size; });
    EXPECT_NE(err.find("VTAMemAlloc: cannot allocate"), std::string::npos) << err;
    testing::internal::CaptureStderr();
    EXPECT_EQ(VTABufferAlloc(size), nullptr) << size;
    testing::internal::GetCapturedStderr();
  }
  EXPECT_EQ(Dram::global().alloc(SIZE_MAX), nullptr);
  // The next allocations are distinct and the first of them is not aliased by anything.
  void* a = VTAMemAlloc(100, VTA_CACHED);
  void* b = VTAMemAlloc(100, VTA_CACHED);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(VTAMemGetPhyAddr(a), VTAMemGetPhyAddr(b));
  VTAMemFree(a);
  VTAMemFree(b);
}

TEST(BadInput, TranslateIsOverflowSafe) {
  DevBuf buf(64);
  EXPECT_EQ(Dram::global().translate(buf.phys(), SIZE_MAX), nullptr);
  EXPECT_EQ(Dram::global().translate(buf.phys() + 8, SIZE_MAX - 7), nullptr);
  EXPECT_EQ(Dram::global().translate(UINT64_MAX, 1), nullptr);
  EXPECT_NE(Dram::global().translate(buf.phys(), 64), nullptr);
  EXPECT_EQ(Dram::global().translate(buf.phys(), 65), nullptr);
}

TEST(BadInput, BufferCopyRangesAreOverflowChecked) {
  void* before = VTABufferAlloc(4096);
  void* buf = VTABufferAlloc(4096);
  ASSERT_NE(before, nullptr);
  ASSERT_NE(buf, nullptr);
  std::memset(VTABufferCPUPtr(nullptr, before), 0x5a, 4096);
  std::vector<uint8_t> host(64, 0xee);
  // (size_t)-16 + 32 wraps to 16: the old check let this write 16 bytes before the buffer.
  std::string err = stderr_of([&] { VTABufferCopy(host.data(), 0, buf, size_t(-16), 32, 1); });
  EXPECT_NE(err.find("destination range"), std::string::npos) << err;
  err = stderr_of([&] { VTABufferCopy(buf, SIZE_MAX, host.data(), 0, 2, 2); });
  EXPECT_NE(err.find("source range"), std::string::npos) << err;
  err = stderr_of([&] { VTABufferCopy(host.data(), 0, buf, 4090, 7, 1); });
  EXPECT_NE(err.find("exceeds its 4096-byte buffer"), std::string::npos) << err;
  err = stderr_of([&] { VTABufferCopy(host.data(), 0, buf, 0, 8, 4); });
  EXPECT_NE(err.find("kind_mask 4"), std::string::npos) << err;
  err = stderr_of([&] { VTABufferCopy(host.data(), 0, host.data() + 1, 0, 8, 1); });
  EXPECT_NE(err.find("not a live buffer"), std::string::npos) << err;
  const auto* p = static_cast<const uint8_t*>(VTABufferCPUPtr(nullptr, before));
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(p[i], 0x5a) << "byte " << i << " of the neighbour was written";
  const auto* q = static_cast<const uint8_t*>(VTABufferCPUPtr(nullptr, buf));
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(q[i], 0) << "byte " << i << " was written by a refused copy";
  VTABufferFree(buf);
  VTABufferFree(before);
}

TEST(BadInput, MemCopyRefusesRangesPastTheDeviceBuffer) {
  void* a = VTAMemAlloc(100, VTA_CACHED);
  void* b = VTAMemAlloc(100, VTA_CACHED);
  std::vector<uint8_t> host(8192, 0x77);
  const std::string err = stderr_of([&] { VTAMemCopyFromHost(static_cast<uint8_t*>(a) + 50, host.data(), 4200); });
  EXPECT_NE(err.find("runs past the end of its 100-byte device buffer"), std::string::npos) << err;
  EXPECT_EQ(static_cast<uint8_t*>(b)[0], 0) << "the next allocation was written";
  EXPECT_EQ(static_cast<uint8_t*>(a)[50], 0) << "a refused copy copies nothing";
  VTAMemCopyFromHost(a, host.data(), 100);  // exactly the buffer: fine
  EXPECT_EQ(static_cast<uint8_t*>(a)[99], 0x77);
  VTAMemFree(a);
  VTAMemFree(b);
}

// ---- 2. runtime transfers are checked against the buffer they name -------------------------------

class RuntimeBadInput : public ::testing::Test {
 protected:
  void SetUp() override { VTARuntimeShutdown(); }
  void TearDown() override { VTARuntimeShutdown(); }
  const Config& cfg_ = build_config();
};

TEST_F(RuntimeBadInput, StoreBeyondItsBufferIsRefusedAndTheNeighbourIsUntouched) {
  const size_t elem = cfg_.out_elem_bytes();
  void* out = VTABufferAlloc(256 * elem);
  void* next = VTABufferAlloc(256 * elem);
  VTACommandHandle cmd = VTATLSCommandHandle();
  std::string err = stderr_of([&] {
    VTAStoreBuffer2D(cmd, 0, 4, out, 256, 1, 1, 1);  // element 256 of a 256-element buffer
    EXPECT_NE(VTASynchronize(cmd, 1u << 31), 0);
  });
  EXPECT_NE(std::string(VTARuntimeGetLastError()).find("the transfer reaches bytes [" + std::to_string(256 * elem)),
            std::string::npos)
      << VTARuntimeGetLastError();
  const auto* n = static_cast<const uint8_t*>(VTABufferCPUPtr(cmd, next));
  for (size_t i = 0; i < 256 * elem; ++i) ASSERT_EQ(n[i], 0) << "byte " << i << " of the next buffer";
  // a 2D load whose last row runs past the end: refused the same way
  err = stderr_of([&] {
    VTALoadBuffer2D(cmd, out, 0, 16, 17, 16, 0, 0, 0, 0, 0, 2);  // 17 rows of 16: 272 > 256 elements
    EXPECT_NE(VTASynchronize(cmd, 1u << 31), 0);
  });
  EXPECT_NE(err.find("VTALoadBuffer2D("), std::string::npos) << err;
  VTABufferFree(out);
  VTABufferFree(next);
}

TEST_F(RuntimeBadInput, FreeingABufferBeforeSynchronizeDefersItsMemory) {
  const size_t bytes = 16 * cfg_.out_elem_bytes();
  void* out = VTABufferAlloc(bytes);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTAStoreBuffer2D(cmd, 0, 4, out, 0, 16, 1, 16);
  VTABufferFree(out);  // the handle is gone; the memory waits for the batch
  void* fresh = VTABufferAlloc(bytes);
  auto* f = static_cast<uint8_t*>(VTABufferCPUPtr(cmd, fresh));
  std::memset(f, 0x33, bytes);
  ASSERT_EQ(VTASynchronize(cmd, 1u << 31), 0) << VTARuntimeGetLastError();
  for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(f[i], 0x33) << "the queued store wrote into reused memory at " << i;
  // the freed handle is refused from now on
  stderr_of([&] {
    VTAStoreBuffer2D(cmd, 0, 4, out, 0, 1, 1, 1);
    EXPECT_NE(VTASynchronize(cmd, 1u << 31), 0);
  });
  EXPECT_NE(std::string(VTARuntimeGetLastError()).find("not a live buffer"), std::string::npos);
  VTABufferFree(fresh);
  const std::string err = stderr_of([&] { VTABufferFree(out); });
  EXPECT_NE(err.find("already freed"), std::string::npos) << err;
}

// ---- 4. a bad environment is an error, never an abort --------------------------------------------

TEST_F(RuntimeBadInput, UnknownTargetIsAnErrorNotAnAbort) {
  ScopedEnv target("VTA_TARGET", "bogus");
  VTAStats stats;
  const std::string err = stderr_of([&] {
    EXPECT_EQ(VTATLSCommandHandle(), nullptr);
    EXPECT_NE(VTASynchronize(nullptr, 0), 0);
    EXPECT_NE(VTARuntimeGetStats(nullptr, &stats), 0);
    VTARuntimeClearStats(nullptr);
    VTASetDebugMode(nullptr, 0);
    void* buf = VTABufferAlloc(64);
    VTALoadBuffer2D(nullptr, buf, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2);
    EXPECT_NE(VTASynchronize(nullptr, 0), 0);
    VTABufferFree(buf);
    EXPECT_EQ(VTADeviceAlloc(), nullptr);
  });
  EXPECT_NE(err.find("unknown VTA target \"bogus\""), std::string::npos) << err;
  EXPECT_NE(std::string(VTARuntimeGetLastError()).find("bogus"), std::string::npos);
  EXPECT_THROW((void)runtime::runtime_stats(), std::exception) << "the C++ API throws, with the message";
}

TEST_F(RuntimeBadInput, UnwritableTraceFileIsAnError) {
  ScopedEnv trace("VTA_TRACE_CALLS", "/nonexistent-directory/trace.txt");
  const std::string err = stderr_of([&] { EXPECT_EQ(VTATLSCommandHandle(), nullptr); });
  EXPECT_NE(err.find("cannot open the VTA_TRACE_CALLS file /nonexistent-directory/trace.txt"), std::string::npos)
      << err;
}

// ---- 6. threads ----------------------------------------------------------------------------------

TEST_F(RuntimeBadInput, CommandHandlesAreCheckedForLifeAndOwner) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  ASSERT_NE(cmd, nullptr);
  std::string message;
  std::thread other([&] {
    stderr_of([&] { EXPECT_NE(VTADepPush(cmd, 1, 2), 0); });
    message = VTARuntimeGetLastError();
    VTARuntimeShutdown();
  });
  other.join();
  EXPECT_NE(message.find("belongs to another thread"), std::string::npos) << message;
  VTARuntimeShutdown();
  stderr_of([&] { EXPECT_NE(VTASynchronize(cmd, 0), 0); });  // dangling after shutdown
  EXPECT_NE(std::string(VTARuntimeGetLastError()).find("not a live queue"), std::string::npos)
      << VTARuntimeGetLastError();
  VTAStats stats;
  stderr_of([&] { EXPECT_NE(VTARuntimeGetStats(cmd, &stats), 0); });
}

int record_null_closure(void*) { return 0; }

TEST_F(RuntimeBadInput, NullClosureIsRefused) {
  static void* handle = nullptr;
  stderr_of([&] { EXPECT_NE(VTAPushGEMMOp(&handle, record_null_closure, nullptr, 4), 0); });
  EXPECT_NE(std::string(VTARuntimeGetLastError()).find("NULL closure of 4 bytes"), std::string::npos);
  stderr_of([&] { VTASynchronize(nullptr, 0); });
}

int record_copy_kernel(void*) {
  VTAUopLoopBegin(4, 1, 1, 0);
  VTAUopPush(1, 0, 0, 4, 0, 2, 0, 0);  // acc[i] += acc[4 + i]
  VTAUopLoopEnd();
  return 0;
}

// One small runtime program: acc = load(a); acc[0..4) += acc[4..8); store. Returns true when the
// stored outputs equal the reference.
bool run_add_program(int seed) {
  const Config& cfg = build_config();
  const size_t lanes = size_t(cfg.batch()) * cfg.block_out();
  std::vector<int32_t> acc(8 * lanes);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = int32_t((i * 7 + size_t(seed)) % 50);
  void* in = VTABufferAlloc(acc.size() * 4);
  void* out = VTABufferAlloc(4 * lanes);
  VTABufferCopy(acc.data(), 0, in, 0, acc.size() * 4, 1);
  VTACommandHandle cmd = VTATLSCommandHandle();
  static void* kernel = nullptr;  // shared by every thread: claimed atomically
  VTALoadBuffer2D(cmd, in, 0, 8, 1, 8, 0, 0, 0, 0, 0, 3);
  VTAPushALUOp(&kernel, record_copy_kernel, nullptr, 0);
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  VTAStoreBuffer2D(cmd, 0, 4, out, 0, 4, 1, 4);
  VTADepPush(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
  const bool ran = VTASynchronize(cmd, 1u << 31) == 0;
  std::vector<int8_t> got(4 * lanes);
  VTABufferCopy(out, 0, got.data(), 0, got.size(), 2);
  bool ok = ran;
  for (size_t i = 0; i < 4 * lanes; ++i) ok = ok && got[i] == int8_t(acc[i] + acc[4 * lanes + i]);
  VTABufferFree(in);
  VTABufferFree(out);
  return ok;
}

TEST(BadInputThreads, ThreadsSharingKernelHandlesAndTracingGetTheirOwnFiles) {
  const std::string trace = vta::test::scratch_path("vta_threads_trace.txt");
  ScopedEnv env("VTA_TRACE_CALLS", trace.c_str());
  std::atomic<int> failures{0}, ready{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      ++ready;
      while (ready.load() < 4) std::this_thread::yield();
      for (int i = 0; i < 20; ++i) failures += run_add_program(t * 100 + i) ? 0 : 1;
      ready += 10;  // keep every queue (and its trace file) open until all four are done
      while (ready.load() < 44) std::this_thread::yield();
      VTARuntimeShutdown();
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (const std::string& path : {trace, trace + ".1", trace + ".2", trace + ".3"}) {
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " was not written";
    std::string line;
    int syncs = 0;
    while (std::getline(in, line)) syncs += line == "VTASynchronize()";
    EXPECT_EQ(syncs, 20) << path << ": one thread's complete trace (20 programs, one synchronize each)";
    in.close();
    std::remove(path.c_str());
  }
}

TEST(BadInputThreads, ADeviceHandleSharedByThreadsIsSerialised) {
  const Config& cfg = build_config();
  VTADeviceHandle dev = VTADeviceAlloc();
  ASSERT_NE(dev, nullptr);
  // each thread runs its own program (LOAD ACC, ALU add, STORE) on the one shared device
  std::atomic<int> wrong{0};
  auto worker = [&](int seed) {
    const size_t lanes = size_t(cfg.batch()) * cfg.block_out();
    DevBuf acc(2 * lanes * 4), out(lanes), uop(4);
    for (size_t i = 0; i < 2 * lanes; ++i) acc.as<int32_t>()[i] = int32_t(i) + seed;
    Program p(cfg);
    test::put_uops(p.isa(), uop, {{0, 1, 0}});
    AluInsn a;
    a.alu_opcode = uint8_t(AluOp::kAdd), a.uop_bgn = 0, a.uop_end = 1, a.iter_out = 1, a.iter_in = 1;
    a.deps.push_next = true;
    p.load(MemId::kUop, 0, uop.base(4), 1, 1, 1)
        .load(MemId::kAcc, 0, acc.base(cfg.acc_elem_bytes()), 1, 2, 2)
        .alu(a)
        .store(0, out.base(cfg.out_elem_bytes()), 1, 1, 1, test::pop_prev() | test::push_prev())
        .finish(test::pop_next());
    const DevBuf insns = p.to_device();
    for (int r = 0; r < 200; ++r) {
      std::memset(out.data(), 0, lanes);
      if (VTADeviceRun(dev, vta_phy_addr_t(insns.phys()), uint32_t(p.insns().size()), 0) != 0) {
        ++wrong;
        continue;
      }
      for (size_t i = 0; i < lanes; ++i) {
        if (out.as<int8_t>()[i] != int8_t(2 * int32_t(i) + 2 * seed + int32_t(lanes))) {
          ++wrong;
          break;
        }
      }
    }
  };
  std::thread a(worker, 1), b(worker, 50);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
  VTADeviceFree(dev);
}

// ---- 8. configurations ------------------------------------------------------------------------------

std::string config_text(const std::string& key, const std::string& value) {
  std::ifstream in(vta::test::source_path("config/vta_config.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("\"" + key + "\": ");
  const size_t start = at + key.size() + 4, end = text.find_first_of(",\n}", start);
  return text.substr(0, start) + value + text.substr(end);
}

std::string config_error(const std::string& text, const std::string& origin = "test.json") {
  try {
    (void)Config::from_json_text(text, origin);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(BadInputConfig, IntegersAreNeverTruncated) {
  for (const char* v : {"4294967300", "4294967296", "18446744073709551615", "-9223372036854775808"}) {
    const std::string err = config_error(config_text("LOG_BLOCK", v));
    EXPECT_NE(err.find("LOG_BLOCK = " + std::string(v) + " is out of range"), std::string::npos) << err;
  }
  EXPECT_NE(config_error(config_text("LOG_BATCH", "4294967296")).find("LOG_BATCH"), std::string::npos);
}

TEST(BadInputConfig, HwVerIsAVersionString) {
  for (const char* v : {"\"0.0.2\\n#error injected\"", "\"\"", "\"a b\"", "\"0.0.2\\\"\""}) {
    const std::string err = config_error(config_text("HW_VER", v));
    EXPECT_NE(err.find("HW_VER must be 1 to 32 characters"), std::string::npos) << v << ": " << err;
  }
  EXPECT_EQ(config_error(config_text("HW_VER", "\"1.2.3-rc1\"")), "(accepted)");
}

TEST(BadInputConfig, DuplicateKeysAreRefused) {
  const std::string text = config_text("LOG_BLOCK", "4,\n  \"LOG_BLOCK\": 5");
  EXPECT_NE(config_error(text).find("key LOG_BLOCK is given more than once"), std::string::npos) << config_error(text);
}

TEST(BadInputConfig, FilesAreReadWithABoundAndErrorsNameThem) {
  try {
    (void)Config::from_file("/dev/zero");
    ADD_FAILURE() << "/dev/zero accepted";
  } catch (const ConfigError& e) {
    // a device is refused before anything is read (it used to be read up to the size bound)
    EXPECT_NE(std::string(e.what()).find("/dev/zero: a character device, not a regular file"), std::string::npos)
        << e.what();
  }
  // a regular file past the bound is refused once the bound is read
  const std::string big = vta::test::scratch_path("vta_config_big.json");
  std::ofstream(big) << std::string(Config::kMaxFileBytes + 1, ' ');
  try {
    (void)Config::from_file(big);
    ADD_FAILURE() << big << " accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(big + ": more than the 65536 bytes this reader accepts"), std::string::npos)
        << e.what();
  }
  std::remove(big.c_str());
  // a file whose reported size is not its content's, as every sysfs attribute reports 4096 bytes: read
  // to its end (the board's phys_addr, size and UIO map files were refused as 4096 bytes over 64)
  const char* sysfs = "/sys/devices/system/cpu/online";
  struct stat st {};
  if (::stat(sysfs, &st) == 0 && st.st_size > 64) {
    const std::string text = vta::read_file(sysfs, 64);
    EXPECT_FALSE(text.empty());
    EXPECT_LT(text.size(), size_t(st.st_size)) << "the content is shorter than the size stat reports";
    EXPECT_EQ(text.back(), '\n');
  }
  const std::string path = vta::test::scratch_path("vta_config_1e400.json");
  std::ofstream(path) << config_text("LOG_BLOCK", "1e400");
  try {
    (void)Config::from_file(path);
    ADD_FAILURE() << "1e400 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// ---- 9. handles, memory use, the reference shim ----------------------------------------------------

TEST(BadInput, DeviceHandlesAreValidated) {
  VTADeviceHandle dev = VTADeviceAlloc();
  ASSERT_NE(dev, nullptr);
  VTADeviceFree(dev);
  std::string err = stderr_of([&] { VTADeviceFree(dev); });
  EXPECT_NE(err.find("VTADeviceFree"), std::string::npos) << err;
  err = stderr_of([&] { EXPECT_EQ(VTADeviceRun(dev, 0x1000, 1, 0), VTA_RUN_ERROR); });
  EXPECT_NE(err.find("not a live device handle"), std::string::npos) << err;
  int not_a_device = 0;
  VTAStats stats;
  stderr_of([&] { EXPECT_EQ(VTADeviceGetStats(&not_a_device, &stats), -1); });
  EXPECT_STREQ(VTADeviceGetLastError(&not_a_device), "not a live device handle");
  EXPECT_STREQ(VTADeviceTarget(&not_a_device), "");
}

TEST(BadInput, FreedMemoryIsReturnedToTheSystem) {
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "ThreadSanitizer's shadow memory follows every touched page: resident sizes mean nothing here";
#endif
  constexpr int kBlocks = 20000;
  const size_t before = resident_bytes();
  std::vector<void*> blocks;
  for (int i = 0; i < kBlocks; ++i) {
    blocks.push_back(VTAMemAlloc(1, VTA_CACHED));
    static_cast<uint8_t*>(blocks.back())[0] = 1;  // touch it
  }
  const size_t live = resident_bytes() - before;
  EXPECT_LT(live, size_t(kBlocks) * 5 * 1024) << "a touched 1-byte allocation costs one 4 KiB page";
  for (void* b : blocks) VTAMemFree(b);
  const size_t after = resident_bytes();
  // at least three quarters of the growth goes back (the rest: allocator bookkeeping, and under ASan
  // its quarantine of freed host objects)
  EXPECT_LT(after, before + live / 4) << "freed pages go back to the system: " << before << " -> " << before + live
                                      << " -> " << after;
  for (int i = 0; i < 3; ++i) {
    auto* p = static_cast<uint8_t*>(VTAMemAlloc(4096, VTA_CACHED));
    EXPECT_EQ(p[0], 0) << "reused pages are zero";
    VTAMemFree(p);
  }
}

}  // namespace
}  // namespace vta
