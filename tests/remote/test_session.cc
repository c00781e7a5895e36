// The module-level client, as the tutorials' "RPC setup" uses it: a module built here is uploaded as
// a file, loaded and called on a server (in this process, and fsim or tsim), with outputs and
// statistics equal to the same module run locally and the round trips counted; every refusal names
// its problem and leaves the session usable; a failing call brings the diagnostic back.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "test_paths.h"
#include "vta/compiler/build.h"
#include "vta/compiler/names.h"
#include "vta/compiler/te.h"
#include "vta/driver/build_config.h"
#include "vta/rpc/server.h"
#include "vta/rpc/session.h"
#include "vta/runtime/tensor.h"
#include "vta/workloads/compiled.h"

namespace vta::rpc {
namespace {

using compiler::Module;

// The matrix-multiply tutorial's module, built from its schedule (a small shape).
tutorials::MatmulShape small_matmul() {
  tutorials::MatmulShape s;
  s.in_channels = 16 * build_config().block_in();
  s.out_channels = 16 * build_config().block_out();
  s.batch = build_config().batch();
  s.o_block = 4, s.i_block = 4;
  return s;
}

// The matrix-multiply tutorial's module for small_matmul(), built and not run.
Module matmul_module() {
  struct Keep final : tutorials::ModuleRunner {
    std::optional<Module> module;
    std::vector<int8_t> run(const Module& m, const std::vector<std::vector<int8_t>>&, Stats&) override {
      module = m;
      throw tutorials::RunError("kept");
    }
  } keep;
  (void)tutorials::compiled_matrix_multiply(0, nullptr, small_matmul(), keep);
  if (!keep.module) throw std::runtime_error("the matrix-multiply tutorial built no module");
  return *keep.module;
}

// Catches what `f` throws and returns its message ("" when nothing was thrown).
template <class E = std::exception, class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<std::string> session_backends() {
  std::vector<std::string> out{"fsim"};
  for (const auto& n : backend_names()) {
    if (n == "tsim") out.push_back(n);
  }
  return out;
}

class ModuleSession : public ::testing::TestWithParam<std::string> {};

// Both compiled tutorials through a session: the same outputs (verified against the C++ reference)
// and the same statistics as the seeds', cycles as the local device's, in 6 round trips each.
TEST_P(ModuleSession, TheCompiledTutorialsRunAsLocallyInSixRoundTripsEach) {
  Remote remote = local_session(GetParam());
  EXPECT_EQ(remote.target(), GetParam());
  EXPECT_EQ(remote.round_trips(), 1u) << "the handshake";
  auto runner = tutorials::remote_runner(remote);
  const tutorials::Result m = tutorials::compiled_matrix_multiply(0, nullptr, {}, *runner);
  ASSERT_TRUE(m.ok()) << m.error;
  EXPECT_TRUE(m.stats.counters_equal(tutorials::matrix_multiply_seed_stats()));
  EXPECT_EQ(remote.round_trips(), 7u) << "upload + load, 3 allocations, copies + clear + call, read";
  const tutorials::Result c = tutorials::compiled_convolution(0, nullptr, {}, *runner);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_TRUE(c.stats.counters_equal(tutorials::convolution_seed_stats()));
  EXPECT_EQ(remote.round_trips(), 13u);
  if (GetParam() == "tsim") {
    EXPECT_EQ(m.stats.cycle_count, std::optional<uint64_t>(138233));
    // (483,572 first on a device: the matrix multiply leaves a token the convolution's first instruction pops)
    EXPECT_EQ(c.stats.cycle_count, std::optional<uint64_t>(483580));
  } else {
    EXPECT_FALSE(m.stats.cycle_count);
  }
  std::printf("%s: matrix multiply %llu, convolution %llu cycles; 6 round trips each\n", GetParam().c_str(),
              static_cast<unsigned long long>(m.stats.cycle_count.value_or(0)),
              static_cast<unsigned long long>(c.stats.cycle_count.value_or(0)));
}

INSTANTIATE_TEST_SUITE_P(Backends, ModuleSession, ::testing::ValuesIn(session_backends()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// A module built here, saved as a file, uploaded by path: the remote call computes what the local
// one does, with the same statistics; clearing them is queued into the call's round trip.
TEST(RemoteSession, AnUploadedFileComputesWhatTheLocalModuleDoes) {
  // the tutorial's module, built once and kept
  struct Keep final : tutorials::ModuleRunner {
    std::optional<Module> module;
    std::vector<int8_t> run(const Module& m, const std::vector<std::vector<int8_t>>& in, Stats& s) override {
      module = m;
      return tutorials::local_runner().run(m, in, s);
    }
  } keep;
  const auto shape = small_matmul();
  const tutorials::Result local = tutorials::compiled_matrix_multiply(7, nullptr, shape, keep);
  ASSERT_TRUE(local.ok()) << local.error;
  const auto path = vta::test::scratch_path("gemm.vtam");
  keep.module->save(path.string());

  Remote remote = local_session("fsim");
  remote.upload(path.string());
  std::filesystem::remove(path);
  const uint64_t before = remote.round_trips();
  RemoteModule f = remote.load_module(path.filename().string());
  EXPECT_EQ(remote.round_trips(), before + 1) << "the upload went with the load";
  ASSERT_EQ(f.args().size(), 3u);
  EXPECT_EQ(f.args()[0].name, "data");
  EXPECT_EQ(f.args()[0].shape, keep.module->args()[0]->shape);
  EXPECT_EQ(f.args()[2].name, "res");

  std::mt19937 rng(1);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<std::vector<int8_t>> inputs;
  for (int i = 0; i < 2; ++i) {
    inputs.emplace_back(size_t(keep.module->args()[size_t(i)]->elements()));
    for (auto& x : inputs.back()) x = static_cast<int8_t>(d(rng));
  }
  Stats local_stats;
  const std::vector<int8_t> want = tutorials::local_runner().run(*keep.module, inputs, local_stats);

  auto a = remote.empty(f.args()[0].shape, runtime::DType::kInt8, "data");
  auto b = remote.empty(f.args()[1].shape, runtime::DType::kInt8, "weight");
  auto c = remote.empty(f.args()[2].shape, runtime::DType::kInt8, "res");
  a.copy_from(inputs[0]);
  b.copy_from(inputs[1]);
  for (int run = 0; run < 2; ++run) {  // statistics of each call alone
    remote.clear_stats();
    const uint64_t trips = remote.round_trips();
    f(a, b, c);
    EXPECT_EQ(remote.round_trips(), trips + 1) << "copies, clear_stats and the call in one round trip";
    EXPECT_EQ(remote.stats(), local_stats);
    EXPECT_EQ(remote.round_trips(), trips + 1) << "stats() after a call is known";
    std::vector<int8_t> got(c.elements());
    c.copy_to(got);
    EXPECT_EQ(got, want);
  }
}

// Every refusal names its problem; the session goes on after each.
TEST(RemoteSession, RefusalsNameTheProblemAndTheSessionGoesOn) {
  ServerOptions o;
  o.threads = 1;
  o.max_uploads = 1024 * 1024;
  o.max_memory = 256 * 1024;
  Server server(o);
  Remote remote = connect("127.0.0.1", server.port());
  const std::vector<uint8_t> junk = {'{', 'x'};
  // nothing uploaded under that name; the uploads are listed
  remote.upload("junk.vtam", junk);
  std::string e = thrown<RemoteError>([&] { (void)remote.load_module("gemm.vtam"); });
  EXPECT_TRUE(contains(e, "LoadModule: nothing named gemm.vtam was uploaded in this session (uploaded: junk.vtam)"))
      << e;
  // not a module: the module reader's message, naming the upload
  e = thrown<RemoteError>([&] { (void)remote.load_module("junk.vtam"); });
  EXPECT_TRUE(contains(e, "LoadModule: junk.vtam: not JSON")) << e;
  // names are names, never paths (refused here, and by the server's decoder)
  e = thrown<std::invalid_argument>([&] { remote.upload("../x.vtam", junk); });
  EXPECT_TRUE(contains(e, "'../x.vtam' is not an upload name")) << e;

  // a module built for another target
  const Module gemm = matmul_module();
  const Module tsim_only(gemm.program(), gemm.args(), "tsim");
  std::string text = tsim_only.to_json();
  const size_t tsim_bytes = text.size();
  remote.upload("tsim.vtam", {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  e = thrown<RemoteError>([&] { (void)remote.load_module("tsim.vtam"); });
  EXPECT_TRUE(contains(e, "tsim.vtam was built for target tsim; this server runs fsim")) << e;

  // a good module; tensors of the wrong shape are refused before anything is sent
  text = gemm.to_json();
  remote.upload("gemm.vtam", {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  RemoteModule f = remote.load_module("gemm.vtam");
  auto a = remote.empty(f.args()[0].shape, runtime::DType::kInt8, "a");
  auto w = remote.empty(f.args()[1].shape, runtime::DType::kInt8, "w");
  auto wrong = remote.empty({1, 16}, runtime::DType::kInt8, "wrong");
  e = thrown<std::invalid_argument>([&] { f(a, w, wrong); });
  EXPECT_TRUE(contains(e, "tensor wrong for argument res is int8(1, 16); the argument is int8(")) << e;
  e = thrown<std::invalid_argument>([&] { f.call({&a, &w}); });
  EXPECT_TRUE(contains(e, "2 tensors for 3 arguments")) << e;
  Remote other = local_session("fsim");
  auto foreign = other.empty(f.args()[2].shape, runtime::DType::kInt8, "foreign");
  e = thrown<std::invalid_argument>([&] { f(a, w, foreign); });
  EXPECT_TRUE(contains(e, "not a live tensor of this remote session")) << e;
  // int4 elements pair into bytes: an odd count is refused before anything is allocated
  e = thrown<std::invalid_argument>([&] { (void)remote.empty({3, 5}, runtime::DType::kInt4, "odd"); });
  EXPECT_TRUE(
      contains(e, "remote tensor odd: an int4 tensor's element count must be even (two elements a byte), not 15"))
      << e;
  // tensors are freed on the server when they go: 100 of 128 KiB under a 256 KiB cap
  for (int i = 0; i < 100; ++i) {
    auto t = remote.empty({128 * 1024}, runtime::DType::kInt8, "scratch");
  }
  auto res = remote.empty(f.args()[2].shape, runtime::DType::kInt8, "res");
  f(a, w, res);  // the session is still usable
  EXPECT_GT(remote.stats().gemm_counter, 0u);
  // the session's upload store is capped (what is kept: junk, tsim and gemm)
  const uint64_t kept = 2 + tsim_bytes + text.size();
  const std::vector<uint8_t> big(size_t(o.max_uploads - kept - 100), ' ');
  remote.upload("a.vtam", big);
  remote.upload("a.vtam", big);  // replacing keeps the total
  remote.upload("b.vtam", std::vector<uint8_t>(200, ' '));
  e = thrown<RemoteError>([&] { remote.flush(); });
  EXPECT_TRUE(contains(e, "upload of b.vtam: Upload of b.vtam (200 bytes): the session keeps " +
                              std::to_string(o.max_uploads - 100) + " bytes of uploads of its " +
                              std::to_string(o.max_uploads)))
      << e;
  f(a, w, res);
}

// What the server checks itself, for clients other than this library: handles, argument counts,
// buffers. Spoken with a raw connection.
TEST(RemoteSession, TheServerChecksEveryCallOnItsOwn) {
  ServerOptions o;
  o.threads = 1;
  Server server(o);
  Connection conn("127.0.0.1", server.port());
  auto error_of = [&](const Message& m) -> std::string {
    const auto replies = conn.pipeline(std::span<const Message>(&m, 1));
    const auto* err = std::get_if<Error>(&replies.front());
    return err ? std::string(to_string(err->code)) + ": " + err->message : "accepted";
  };
  EXPECT_EQ(error_of(Call{7, {}}), "bad-value: Call: no module with handle 7 was loaded in this session");
  const std::string text = matmul_module().to_json();
  EXPECT_EQ(error_of(Upload{"m.vtam", {text.begin(), text.end()}}), "accepted");
  const auto replies = conn.pipeline(std::vector<Message>{LoadModule{"m.vtam"}});
  const auto* loaded = std::get_if<ModuleReply>(&replies.front());
  ASSERT_NE(loaded, nullptr);
  const uint32_t h = loaded->handle;
  EXPECT_EQ(error_of(Call{h, {0x1000}}), "bad-value: Call: 1 buffers for a module of 3 arguments");
  const uint64_t small = conn.alloc(16), big = conn.alloc(1 << 20);
  EXPECT_EQ(error_of(Call{h, {0x123000, big, big}}),
            "no-such-buffer: Call: argument data: no buffer starts at 0x123000");
  EXPECT_EQ(error_of(Call{h, {big + 16, big, big}}).rfind("no-such-buffer: Call: argument data", 0), 0u)
      << "inside a buffer is not the start of one";
  const std::string e = error_of(Call{h, {small, big, big}});
  EXPECT_TRUE(contains(e, "bad-value: Call: argument data needs ")) << e;
  EXPECT_TRUE(contains(e, " has 16")) << e;
  // a call on good buffers runs (and counts)
  const auto ok = conn.pipeline(std::vector<Message>{Call{h, {big, big, big}}});
  const auto* r = std::get_if<RunReply>(&ok.front());
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, 0u) << r->diagnostic;
  EXPECT_EQ(server.counters().calls, 1u);
}

// A module whose program fails on the device: the diagnostic comes back as a CallError with the
// device's state, and the next call of a good module on the same session succeeds.
TEST(RemoteSession, AFailingCallBringsTheDiagnosticBackAndTheSessionGoesOn) {
  using namespace compiler;  // NOLINT: the IR's vocabulary
  // pops a token nobody pushes: the runtime refuses the batch (the device would deadlock)
  const Module bad(make_seq({make_call(intrin::kDepPop, nullptr, nullptr, {make_int(1), make_int(2)}),
                             make_call(intrin::kSync, nullptr, nullptr, {})}),
                   {}, "");
  Remote remote = local_session("fsim");
  const std::string text = bad.to_json();
  remote.upload("bad.vtam", {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  RemoteModule f = remote.load_module("bad.vtam");
  EXPECT_TRUE(f.args().empty());
  try {
    f.call({});
    ADD_FAILURE() << "the call succeeded";
  } catch (const CallError& e) {
    EXPECT_TRUE(contains(e.what(), "call of module bad.vtam failed: ")) << e.what();
    EXPECT_TRUE(contains(e.what(), "unbalanced dependency tokens")) << e.what();
    EXPECT_EQ(e.reply().status, uint32_t(RunStatus::kError));
  }
  auto runner = tutorials::remote_runner(remote);
  const tutorials::Result m = tutorials::compiled_matrix_multiply(2, nullptr, small_matmul(), *runner);
  EXPECT_TRUE(m.ok()) << m.error;
}

// Modules that crashed the server (a probe's mutants) are refused by the reader, or fail as a call's
// error; the server serves on, to this session and to another one.
TEST(RemoteSession, ModulesThatCrashedTheServerAreRefusedAndItServesOn) {
  using namespace compiler;  // NOLINT: the IR's vocabulary
  ServerOptions o;
  o.threads = 2;
  Server server(o);
  Remote remote = connect("127.0.0.1", server.port());
  const Module gemm = matmul_module();
  std::string text = gemm.to_json();
  // the last argument of the first micro-op push removed (a SIGSEGV in the executor before)
  nlohmann::json j = nlohmann::json::parse(text);
  std::function<bool(nlohmann::json&)> drop = [&](nlohmann::json& x) {
    if (x.is_object() && x.value("k", "") == "Call" && x["name"] == intrin::kUopPush) {
      x["args"].erase(x["args"].size() - 1);
      return true;
    }
    if (x.is_object() || x.is_array()) {
      for (auto& c : x) {
        if (drop(c)) return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(drop(j["program"]));
  const std::string mutant = j.dump();
  remote.upload("mutant.vtam", {reinterpret_cast<const uint8_t*>(mutant.data()), mutant.size()});
  std::string e = thrown<RemoteError>([&] { (void)remote.load_module("mutant.vtam"); });
  EXPECT_TRUE(contains(e, "LoadModule: mutant.vtam: program.") && contains(e, "vta.uop_push takes 8 arguments, not 7"))
      << e;
  // a loop of 2^32 - 1 iterations around the program: refused by the call's step bound, at once
  const Var n = make_var("n");
  const Module huge(make_for(n, (int64_t{1} << 32) - 1, gemm.program()), gemm.args(), "");
  text = huge.to_json();
  remote.upload("huge.vtam", {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  RemoteModule h = remote.load_module("huge.vtam");
  auto a = remote.empty(h.args()[0].shape, vta::runtime::DType::kInt8, "a");
  auto w = remote.empty(h.args()[1].shape, vta::runtime::DType::kInt8, "w");
  auto r = remote.empty(h.args()[2].shape, vta::runtime::DType::kInt8, "r");
  e = thrown<CallError>([&] { h(a, w, r); });
  EXPECT_TRUE(contains(e, "statements on the host; the limit is")) << e;
  // this session and another go on
  auto runner = tutorials::remote_runner(remote);
  EXPECT_TRUE(tutorials::compiled_matrix_multiply(2, nullptr, small_matmul(), *runner).ok());
  Remote other = connect("127.0.0.1", server.port());
  auto other_runner = tutorials::remote_runner(other);
  EXPECT_TRUE(tutorials::compiled_matrix_multiply(2, nullptr, small_matmul(), *other_runner).ok());
}

// A call that would run for ever within a generous step bound is cancelled when the server stops: the
// server's destructor (what SIGTERM runs in vta-device-server) returns instead of waiting for it.
TEST(RemoteSession, StoppingTheServerCancelsACallInProgress) {
  using namespace compiler;  // NOLINT: the IR's vocabulary
  ServerOptions o;
  o.threads = 2;
  o.max_call_steps = uint64_t{1} << 48;
  auto server = std::make_unique<Server>(o);
  const Var i = make_var("i"), j = make_var("j");
  // 2^46 empty iterations: days of interpretation, within the bound
  const Module spin(make_for(i, int64_t{1} << 32, make_for(j, int64_t{1} << 14, make_seq({}))), {}, "");
  ASSERT_LT(spin.host_steps(), o.max_call_steps);
  Remote remote = connect("127.0.0.1", server->port());
  const std::string text = spin.to_json();
  remote.upload("spin.vtam", {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  RemoteModule f = remote.load_module("spin.vtam");
  std::string outcome = "returned";
  std::thread caller([&] { outcome = thrown<RemoteError>([&] { f.call({}); }); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (server->counters().calls == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(server->counters().calls, 1u);
  server.reset();  // joins its threads: only possible when the call in progress has stopped
  caller.join();
  EXPECT_NE(outcome, "returned") << "the call cannot have completed";
}

TEST(RemoteSession, ALocalSessionServesABackendOfThisProcess) {
  const std::string e = thrown<std::invalid_argument>([] { (void)local_session("rpc://127.0.0.1:1"); });
  EXPECT_TRUE(contains(e, "is a remote device")) << e;
  EXPECT_THROW((void)local_session("nonesuch"), std::invalid_argument);
}

// One session used from two threads at once (as two Python threads do, the GIL released during each
// call): every call is whole, every tensor reads back what its thread wrote. Without the session's and
// the connection's locks the frames interleaved: "a reply to request 13, expected 14", then a closed
// connection.
TEST(RemoteSession, OneSessionServesTwoThreadsAtOnce) {
  Remote remote = local_session("fsim");
  constexpr int kRounds = 200;
  std::vector<std::string> failures(2);
  auto work = [&](int id) {
    try {
      std::mt19937 rng(uint32_t(id + 1));
      for (int round = 0; round < kRounds; ++round) {
        const size_t n = 16 + rng() % 4096;
        RemoteTensor t = remote.empty({int64_t(n)}, runtime::DType::kInt32, "t" + std::to_string(id));
        std::vector<int32_t> in(n), out(n);
        for (auto& v : in) v = int32_t(rng());
        t.copy_from(in);
        if (round % 3 == 0) (void)remote.stats();
        t.copy_to(out);
        if (out != in) throw std::runtime_error("round " + std::to_string(round) + ": another thread's data");
      }
    } catch (const std::exception& e) {
      failures[size_t(id)] = e.what();
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
  remote.flush();  // the session goes on
}

}  // namespace
}  // namespace vta::rpc
