// The driver-level client (VTA_TARGET=rpc://HOST:PORT) as a backend like any other: the reference-style
// program suite on a remote fsim and a remote tsim (outputs against the C++ reference, statistics
// against closed forms), and what only a remote device has: its traffic (one round trip per run,
// only the bytes a run reads and stores), buffers freed locally being freed on the server, a server
// that goes away, a configuration the server does not run, and diagnostics coming back through the
// C API. Servers: common/loopback_backends.cc (rpc-fsim, rpc-tsim) and ones started here.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "program_suite.h"
#include "test_paths.h"
#include "test_util.h"
#include "vta/driver.h"
#include "vta/driver/build_config.h"
#include "vta/driver_ext.h"
#include "vta/rpc/remote_device.h"
#include "vta/rpc/server.h"

namespace vta::test {
namespace {

// rpc-fsim always; rpc-tsim when this executable links the tsim.
std::vector<std::string> remote_backends() {
  std::vector<std::string> out;
  for (const auto& n : backend_names()) {
    if (n.rfind("rpc-", 0) == 0) out.push_back(n);
  }
  return out;
}

class RemoteSuite : public ::testing::TestWithParam<std::string> {
 protected:
  const Config& cfg_ = build_config();
  std::unique_ptr<Device> dev_ = make_device(GetParam(), cfg_);
};

TEST_P(RemoteSuite, AluEveryOpcode) { alu_every_opcode_suite(*dev_, cfg_); }
TEST_P(RemoteSuite, GemmSingleBlock) { gemm_single_block_suite(*dev_, cfg_); }
TEST_P(RemoteSuite, BlockedGemmOneAndTwoVirtualThreads) { blocked_gemm_suite(*dev_, cfg_); }
TEST_P(RemoteSuite, ReferenceSizes) {
  if (cfg_.batch() != 1 || cfg_.block_in() != 16) GTEST_SKIP() << "the reference sizes assume 1x16";
  reference_sizes_suite(*dev_);
}

INSTANTIATE_TEST_SUITE_P(Loopback, RemoteSuite, ::testing::ValuesIn(remote_backends()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param.substr(4); });

// A server of its own for the tests that look at one session.
struct OwnServer {
  explicit OwnServer(uint64_t max_memory = uint64_t{1} << 30) {
    rpc::ServerOptions o;
    o.threads = 1;
    o.max_memory = max_memory;
    server = std::make_unique<rpc::Server>(o);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(server->port()); }
  std::unique_ptr<rpc::Server> server;
};

// ACC -> OUT: load 2 accumulator rows, add 3 to each, store them 4 elements apart.
Program add_three(const Config& c, const DevBuf& acc, const DevBuf& out, const DevBuf& uops) {
  AluInsn a;
  a.uop_bgn = 0, a.uop_end = 1, a.iter_out = 2, a.iter_in = 1, a.dst_factor_out = 1, a.src_factor_out = 1;
  a.alu_opcode = uint8_t(AluOp::kAdd), a.use_imm = true, a.imm = 3;
  a.deps = test::push_next();
  Program p(c);
  p.load(MemId::kUop, 0, uops.base(4), 1, 1, 1)
      .load(MemId::kAcc, 0, acc.base(c.acc_elem_bytes()), 2, 1, 1)
      .alu(a)
      .store(0, out.base(c.out_elem_bytes()), 2, 1, 4, {true, false, true, false})
      .finish(test::pop_next());
  return p;
}

TEST(RemoteDevice, OneRoundTripPerRunAndOnlyTheBytesARunUses) {
  OwnServer s;
  auto dev = rpc::make_remote_device(s.address(), build_config());
  const Config& c = build_config();
  DevBuf acc(64 * c.acc_elem_bytes()), out(64 * c.out_elem_bytes()), uops(64);
  uops.as<uint32_t>()[0] = Isa(c).encode(Uop{0, 0, 0});
  for (size_t i = 0; i < acc.size() / 4; ++i) acc.as<int32_t>()[i] = int32_t(i % 50);
  std::memset(out.data(), 0x5a, out.size());
  const Program p = add_three(c, acc, out, uops);
  ASSERT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();
  const auto first = rpc::remote_traffic(*dev);
  EXPECT_EQ(first.round_trips, 1u) << "mirrors, copies, the run and the copies back in one batch";
  const uint64_t row = c.acc_elem_bytes(), out_span = 5 * c.out_elem_bytes();
  // sent: 2 accumulator rows, 1 micro-op, the instructions, and the stored span (so the gap between
  // the two stored rows comes back as it was)
  EXPECT_EQ(first.bytes_sent, 2 * row + 4 + p.insns().size() * 16 + out_span);
  EXPECT_EQ(first.bytes_received, out_span);
  for (int r = 0; r < 2; ++r) {
    for (int j = 0; j < c.block_out(); ++j) {
      const int8_t got = reinterpret_cast<int8_t*>(out.data())[r * 4 * c.block_out() + j];
      EXPECT_EQ(got, (r * c.block_out() + j) % 50 + 3) << "row " << r << " element " << j;
    }
  }
  EXPECT_EQ(out.data()[c.out_elem_bytes()], 0x5a) << "bytes between the stored rows are untouched";
  // the same program again: the mirrors exist, the run is still one round trip
  ASSERT_EQ(p.run(*dev), RunStatus::kOk);
  EXPECT_EQ(rpc::remote_traffic(*dev).round_trips, 2u);
  EXPECT_EQ(dev->stats().alu_counter, 4u);
  std::printf("remote run: %llu bytes sent, %llu received, %llu round trips for 2 runs\n",
              static_cast<unsigned long long>(rpc::remote_traffic(*dev).bytes_sent),
              static_cast<unsigned long long>(rpc::remote_traffic(*dev).bytes_received),
              static_cast<unsigned long long>(rpc::remote_traffic(*dev).round_trips));
}

// Buffers freed and allocated again between runs (as the runtime does for every batch) are freed on
// the server too: 300 runs, each with fresh buffers of 1 MiB and more (sizes vary, so no mirror can
// be reused), fit a session capped at 4 MiB.
TEST(RemoteDevice, BuffersFreedLocallyAreFreedOnTheServer) {
  OwnServer s(4u << 20);
  auto dev = rpc::make_remote_device(s.address(), build_config());
  const Config& c = build_config();
  DevBuf uops(64);
  uops.as<uint32_t>()[0] = Isa(c).encode(Uop{0, 0, 0});
  for (int i = 0; i < 300; ++i) {
    DevBuf acc((1u << 20) + size_t(i % 7) * Dram::kPageBytes), out(64 * c.out_elem_bytes() + size_t(i % 3));
    acc.as<int32_t>()[0] = i;
    ASSERT_EQ(add_three(c, acc, out, uops).run(*dev), RunStatus::kOk) << "run " << i << ": " << dev->last_error();
    ASSERT_EQ(reinterpret_cast<int8_t*>(out.data())[0], int8_t(i + 3));
  }
  EXPECT_EQ(rpc::remote_traffic(*dev).round_trips, 300u);
}

TEST(RemoteDevice, AServerThatGoesAwayFailsTheRunByName) {
  auto s = std::make_unique<OwnServer>();
  auto dev = rpc::make_remote_device(s->address(), build_config());
  const Config& c = build_config();
  DevBuf acc(64 * c.acc_elem_bytes()), out(64 * c.out_elem_bytes()), uops(64);
  const Program p = add_three(c, acc, out, uops);
  ASSERT_EQ(p.run(*dev), RunStatus::kOk);
  const Stats before = dev->stats();
  s.reset();
  EXPECT_EQ(p.run(*dev), RunStatus::kError);
  EXPECT_EQ(dev->last_error_kind(), ErrorKind::kInternal);
  EXPECT_NE(dev->last_error().find("vta rpc://127.0.0.1:"), std::string::npos) << dev->last_error();
  EXPECT_NE(dev->last_error().find("remote device"), std::string::npos) << dev->last_error();
  EXPECT_TRUE(dev->stats().counters_equal(before));
  EXPECT_EQ(p.run(*dev), RunStatus::kError) << "the connection stays failed";
  EXPECT_NE(dev->last_error().find("closed"), std::string::npos) << dev->last_error();
}

TEST(RemoteDevice, AnotherConfigurationIsRefusedNamingBoth) {
  OwnServer s;
  const Config other = Config::from_file(vta::test::source_path("config/samples/batch2.json"));
  try {
    (void)rpc::make_remote_device(s.address(), other);
    FAIL() << "a device of another configuration was opened";
  } catch (const rpc::RemoteError& e) {
    EXPECT_EQ(e.code(), rpc::ErrorCode::kConfigMismatch);
    EXPECT_NE(std::string(e.what()).find(other.bitstream_name()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(build_config().bitstream_name()), std::string::npos) << e.what();
  }
}

// VTA_RPC_TOKEN_FILE gives rpc:// devices the token a server asks for.
TEST(RemoteDevice, TheTokenComesFromVtaRpcTokenFile) {
  rpc::ServerOptions o;
  o.threads = 1;
  o.token = "the-shared-secret-of-this-test";
  rpc::Server server(o);
  const std::string target = "rpc://127.0.0.1:" + std::to_string(server.port());
  EXPECT_THROW((void)make_device(target, build_config()), rpc::RemoteError) << "no token";
  const auto path = vta::test::scratch_path("vta_token_dev");
  std::ofstream(path) << o.token << "\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  ASSERT_EQ(setenv("VTA_RPC_TOKEN_FILE", path.c_str(), 1), 0);
  auto dev = make_device(target, build_config());
  unsetenv("VTA_RPC_TOKEN_FILE");
  std::filesystem::remove(path);
  const Config& c = build_config();
  DevBuf acc(64 * c.acc_elem_bytes()), out(64 * c.out_elem_bytes()), uops(64);
  EXPECT_EQ(add_three(c, acc, out, uops).run(*dev), RunStatus::kOk) << dev->last_error();
}

TEST(RemoteDevice, AddressesAreCheckedByName) {
  EXPECT_EQ(rpc::parse_address("127.0.0.1:9091"), std::make_pair(std::string("127.0.0.1"), uint16_t(9091)));
  EXPECT_EQ(rpc::parse_address("[::1]:80"), std::make_pair(std::string("::1"), uint16_t(80)));
  EXPECT_EQ(rpc::parse_address("board.local:9091").first, "board.local");
  for (const char* bad : {"127.0.0.1", ":9091", "host:", "host:0", "host:65536", "host:90x"}) {
    EXPECT_THROW(rpc::parse_address(bad), std::invalid_argument) << bad;
  }
  try {
    (void)make_device("rpc://127.0.0.1", build_config());
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected HOST:PORT"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(is_known_target("rpc://127.0.0.1:1"));
  EXPECT_FALSE(is_known_target("rpcx://127.0.0.1:1"));
  // outside this process: what fast-forward and local sessions refuse
  EXPECT_TRUE(is_scheme_address("rpc://127.0.0.1:1"));
  EXPECT_FALSE(is_scheme_address("tsim"));
  EXPECT_FALSE(is_scheme_address("fsim"));
}

// The C API on a remote device: a deadlocked program's diagnostic comes back in
// VTADeviceGetLastError, the device stays usable, statistics and JSON as local.
TEST(RemoteDevice, TheCApiGetsTheRemoteDiagnostics) {
  OwnServer s;
  const std::string target = "rpc://" + s.address();
  ASSERT_EQ(setenv("VTA_TARGET", target.c_str(), 1), 0);
  VTADeviceHandle h = VTADeviceAlloc();
  unsetenv("VTA_TARGET");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(VTADeviceTarget(h), target);
  const Config& c = build_config();
  Program bad(c);
  bad.finish(test::pop_prev());
  const DevBuf insns = bad.to_device();
  testing::internal::CaptureStderr();
  EXPECT_EQ(VTADeviceRun(h, vta_phy_addr_t(insns.phys()), uint32_t(bad.insns().size()), 0), VTA_RUN_ERROR);
  (void)testing::internal::GetCapturedStderr();
  const std::string err = VTADeviceGetLastError(h);
  EXPECT_EQ(err.rfind("vta " + target + ": error", 0), 0u) << err;
  EXPECT_NE(err.find("[deadlock]"), std::string::npos) << err;
  EXPECT_STREQ(VTADeviceGetLastErrorKind(h), "deadlock");
  VTADeviceFree(h);
}

}  // namespace
}  // namespace vta::test
