// Captured runs (vta/driver/capture.h): what a capture holds, that a replay reproduces the run on a fresh
// memory (outcome, statistics, memory, the tokens earlier runs left), that it notices every kind of
// difference, and that damaged files are refused with a message naming the damage.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_paths.h"
#include "vta/driver/build_config.h"
#include "vta/driver/capture.h"
#include "workloads.h"

namespace vta::test {
namespace {

namespace fs = std::filesystem;

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_path(std::string("vta-capture-test-") +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Device> capturing() { return make_capturing_device(make_test_fsim(cfg_), Dram::global(), dir_); }

  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (!fs::is_directory(dir_)) return out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  Config cfg_ = build_config();
  fs::path dir_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(CaptureTest, OneFilePerRunHoldingTheProgramItsMemoryAndItsStatistics) {
  auto dev = capturing();
  const WorkloadResult alu = alu_workload(*dev, AluOp::kAdd, false, 4, 8 * cfg_.block_out(), false, 3);
  const WorkloadResult gemm = blocked_gemm(*dev, 4, 4 * cfg_.block_in(), cfg_.block_in(), true, 2, 5);
  ASSERT_EQ(alu.status, RunStatus::kOk) << alu.error;
  ASSERT_EQ(gemm.status, RunStatus::kOk) << gemm.error;
  const auto paths = files();
  ASSERT_EQ(paths.size(), 2u);
  const Capture a = Capture::load(paths[0]);
  const Capture g = Capture::load(paths[1]);
  EXPECT_EQ(a.target, "fsim");
  EXPECT_EQ(a.sequence + 1, g.sequence);
  EXPECT_EQ(a.device_run, 0u);
  EXPECT_EQ(g.device_run, 1u);
  EXPECT_EQ(a.config().bitstream_name(), cfg_.bitstream_name());
  // what the run added to the statistics (the workloads clear them first)
  EXPECT_TRUE(a.result.stats.counters_equal(alu.expected)) << a.result.stats.to_json();
  EXPECT_TRUE(g.result.stats.counters_equal(gemm.expected)) << g.result.stats.to_json();
  EXPECT_EQ(a.result.status, RunStatus::kOk);
  // the ALU program: instructions, micro-ops, accumulator data, output; only the output has an after
  unsigned uses = 0;
  for (const auto& r : a.regions) {
    uses |= r.uses;
    EXPECT_EQ(r.after.has_value(), r.written());
    if (r.written()) {
      EXPECT_NE(*r.after, r.before);  // the output was zeros before
    }
  }
  EXPECT_EQ(uses, unsigned(kUseInsn | kUseUop | kUseAcc | kUseOut));
  const auto insns = a.instructions();
  ASSERT_EQ(insns.size(), a.insn_count);
  EXPECT_EQ(Isa::opcode_of(insns.back()), uint8_t(Opcode::kFinish));
  // the file is the bytes to_bytes gives, and reads back to the same capture
  EXPECT_EQ(Capture::from_bytes(g.to_bytes(), "again").to_bytes(), read_file(paths[1]));
}

TEST_F(CaptureTest, ReplayOnAFreshMemoryMatchesTheCapture) {
  auto dev = capturing();
  ASSERT_EQ(blocked_gemm(*dev, 8, 8 * cfg_.block_in(), 2 * cfg_.block_in(), false, 2, 7).status, RunStatus::kOk);
  const Capture c = Capture::load(files().at(0));
  const ReplayResult r = replay(c, {});
  EXPECT_TRUE(r.matches()) << ::testing::PrintToString(r.differences);
  EXPECT_TRUE(r.result.stats.counters_equal(c.result.stats));
}

// A device make_device makes under VTA_CAPTURE: the capture keeps the accumulator loads' DRAM bytes
// (an ACC_8BIT load's, a quarter of what its counter counts), and a replay that counts them otherwise
// is a difference.
TEST_F(CaptureTest, TheAccumulatorLoadsDramBytesAreCapturedAndReplayed) {
  const ScopedEnv env("VTA_CAPTURE", dir_.c_str());
  auto dev = make_device("fsim", cfg_);
  const DevBuf data(4096);
  const uint64_t unit = uint64_t(cfg_.batch()) * cfg_.block_out();
  Program p(cfg_);
  p.load(MemId::kAcc8Bit, 0, data.base(unit), 2, 4, 4).finish();
  ASSERT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();
  Capture c = Capture::load(files().at(0));
  EXPECT_EQ(c.result.stats.acc_load_nbytes, 8u * cfg_.acc_elem_bytes());
  EXPECT_EQ(c.result.stats.acc_load_dram_nbytes, 8 * unit);
  ReplayResult r = replay(c, {});
  EXPECT_TRUE(r.matches()) << ::testing::PrintToString(r.differences);
  EXPECT_EQ(r.result.stats.acc_load_dram_nbytes, 8 * unit);
  c.result.stats.acc_load_dram_nbytes = 8 * unit + 1;
  r = replay(c, {});
  ASSERT_EQ(r.differences.size(), 1u) << ::testing::PrintToString(r.differences);
  EXPECT_NE(r.differences[0].find("acc_load_dram_nbytes: captured"), std::string::npos) << r.differences[0];
}

TEST_F(CaptureTest, ReplaysMatchOnEveryBackend) {
  auto dev = capturing();
  ASSERT_EQ(blocked_gemm(*dev, 4, 4 * cfg_.block_in(), cfg_.block_in(), false, 2, 11).status, RunStatus::kOk);
  ASSERT_EQ(alu_workload(*dev, AluOp::kShr, false, 4, 8 * cfg_.block_out(), true, 4).status, RunStatus::kOk);
  for (const auto& path : files()) {
    const Capture c = Capture::load(path);
    for (const auto& target : backend_names()) {
      SCOPED_TRACE(path + std::string(" on ").append(target));
      ReplayOptions o;
      o.target = target;
      const ReplayResult r = replay(c, o);
      EXPECT_TRUE(r.matches()) << ::testing::PrintToString(r.differences);
    }
  }
}

TEST_F(CaptureTest, ReplayNamesEveryDifference) {
  auto dev = capturing();
  ASSERT_EQ(alu_workload(*dev, AluOp::kMax, true, 4, cfg_.block_out(), false, 9).status, RunStatus::kOk);
  const Capture c = Capture::load(files().at(0));
  // a wrong output byte: the region and offset are named
  Capture wrong_output = c;
  for (auto& r : wrong_output.regions) {
    if (r.written()) (*r.after)[5] ^= 0x40;
  }
  ReplayResult r = replay(wrong_output, {});
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_NE(r.differences[0].find("1 bytes differ, the first at offset 5"), std::string::npos) << r.differences[0];
  // a statistic
  Capture wrong_stats = c;
  wrong_stats.result.stats.alu_counter += 1;
  r = replay(wrong_stats, {});
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_NE(r.differences[0].find("alu_counter: captured"), std::string::npos);
  // the outcome
  Capture wrong_outcome = c;
  wrong_outcome.result.status = RunStatus::kError;
  wrong_outcome.result.kind = ErrorKind::kDeadlock;
  r = replay(wrong_outcome, {});
  ASSERT_FALSE(r.differences.empty());
  EXPECT_NE(r.differences[0].find("captured error [deadlock], replay ok"), std::string::npos) << r.differences[0];
}

TEST_F(CaptureTest, FailedRunsReplayWithTheSameVerdict) {
  auto dev = capturing();
  DevBuf inp(64 * size_t(cfg_.inp_elem_bytes()));
  ASSERT_EQ(deadlocking_program(cfg_, inp.base(cfg_.inp_elem_bytes())).run(*dev), RunStatus::kError);
  // a store running past the end of its buffer
  DevBuf out(size_t(cfg_.out_elem_bytes()));
  Program past_end(cfg_);
  past_end.store(0, out.base(cfg_.out_elem_bytes()), 1, 2, 2).finish();
  ASSERT_EQ(past_end.run(*dev), RunStatus::kError);
  const auto paths = files();
  ASSERT_EQ(paths.size(), 2u);
  const Capture deadlock = Capture::load(paths[0]);
  const Capture dram = Capture::load(paths[1]);
  EXPECT_EQ(deadlock.result.kind, ErrorKind::kDeadlock);
  EXPECT_EQ(dram.result.kind, ErrorKind::kDramRange);
  EXPECT_NE(dram.result.error.find("runs past the end of the buffer"), std::string::npos) << dram.result.error;
  for (const Capture* c : {&deadlock, &dram}) {
    const ReplayResult r = replay(*c, {});
    EXPECT_TRUE(r.matches()) << ::testing::PrintToString(r.differences);
    EXPECT_EQ(r.result.kind, c->result.kind);
  }
}

TEST_F(CaptureTest, TokensEarlierRunsLeftAreRecreated) {
  auto dev = capturing();
  DevBuf out(4 * size_t(cfg_.out_elem_bytes()));
  // run 1 leaves a store -> compute token; run 2's FINISH needs it
  Program leave(cfg_);
  leave.store(0, out.base(cfg_.out_elem_bytes()), 1, 1, 1, push_prev()).finish();
  ASSERT_EQ(leave.run(*dev), RunStatus::kOk);
  ASSERT_EQ(dev->tokens().s2g, 1u);
  Program take(cfg_);
  take.finish(pop_next());
  ASSERT_EQ(take.run(*dev), RunStatus::kOk) << dev->last_error();
  const Capture c = Capture::load(files().at(1));
  EXPECT_EQ(c.tokens_before.s2g, 1u);
  const ReplayResult r = replay(c, {});
  EXPECT_TRUE(r.matches()) << ::testing::PrintToString(r.differences);
  // without the token the same program deadlocks: the recreation is what makes it match
  Capture no_tokens = c;
  no_tokens.tokens_before = {};
  EXPECT_EQ(replay(no_tokens, {}).result.kind, ErrorKind::kDeadlock);
}

TEST_F(CaptureTest, DamagedFilesAreRefusedNamingTheDamage) {
  auto dev = capturing();
  ASSERT_EQ(alu_workload(*dev, AluOp::kAdd, true, 4, cfg_.block_out(), false, 1).status, RunStatus::kOk);
  const std::string bytes = read_file(files().at(0));
  auto refused = [](const std::string& b) -> std::string {
    try {
      (void)Capture::from_bytes(b, "f.vtacap");
    } catch (const CaptureError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refused("hello").find("f.vtacap: not a VTA capture file"), std::string::npos);
  EXPECT_NE(refused(bytes.substr(0, 100)).find("not terminated: truncated"), std::string::npos);
  EXPECT_NE(refused(bytes.substr(0, bytes.size() - 10)).find("past the end of the file"), std::string::npos);
  std::string flipped = bytes;
  flipped.back() ^= 1;
  EXPECT_NE(refused(flipped).find("is corrupted (checksum"), std::string::npos) << refused(flipped);
  std::string version = bytes;
  version.replace(version.find("\"version\":1"), 11, "\"version\":7");
  EXPECT_NE(refused(version).find("capture format version 7"), std::string::npos) << refused(version);
  std::string config = bytes;
  config.replace(config.find("\"LOG_BLOCK\":"), 13, "\"LOG_BLOCK\":9");
  EXPECT_NE(refused(config).find("configuration"), std::string::npos) << refused(config);
  std::string header = bytes;
  header.replace(header.find("\"insn_count\""), 12, "\"insn_cou_t\"");
  EXPECT_NE(refused(header).find("header: missing \"insn_count\""), std::string::npos) << refused(header);
}

TEST_F(CaptureTest, VtaCaptureMakesEveryDeviceCapture) {
  ::setenv("VTA_CAPTURE", dir_.c_str(), 1);
  auto dev = make_device("fsim", cfg_);
  ::unsetenv("VTA_CAPTURE");
  ASSERT_EQ(alu_workload(*dev, AluOp::kMin, true, 4, cfg_.block_out(), false, 2).status, RunStatus::kOk);
  EXPECT_EQ(files().size(), 1u);
  EXPECT_TRUE(files().at(0).ends_with("-000000.vtacap") || files().at(0).ends_with(".vtacap"));
}

TEST_F(CaptureTest, AnUnwritableDirectoryLeavesTheRunAlone) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  auto dev = make_capturing_device(make_test_fsim(cfg_), Dram::global(), (dir_ / "file").string());
  testing::internal::CaptureStderr();
  const WorkloadResult r = alu_workload(*dev, AluOp::kAdd, true, 4, cfg_.block_out(), false, 1);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.status, RunStatus::kOk);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_NE(err.find("vta capture: run not captured"), std::string::npos) << err;
}

}  // namespace
}  // namespace vta::test

namespace vta {
namespace {

// The instruction stream is found in its own region even when another allocation ends exactly where
// it starts (found on a ResNet-18 capture: the micro-op buffer was right before the instructions).
TEST(CaptureFile, TheStreamIsFoundBesideAnAdjacentRegion) {
  Capture c;
  c.insn_addr = 0x2000;
  c.insn_count = 2;
  CapturedRegion before;
  before.phys = 0x1000;
  before.before.assign(0x1000, 0);
  CapturedRegion stream;
  stream.phys = 0x2000;
  stream.before.assign(2 * Config::kInsnElemBytes, 0);
  stream.before[0] = 3;  // FINISH
  stream.before[Config::kInsnElemBytes] = 3;
  c.regions = {before, stream};
  const auto insns = c.instructions();
  ASSERT_EQ(insns.size(), 2u);
  EXPECT_EQ(Isa::opcode_of(insns[0]), uint8_t(Opcode::kFinish));
}

}  // namespace
}  // namespace vta
