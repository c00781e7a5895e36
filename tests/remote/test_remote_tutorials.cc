// Many users on one device server: 16 clients, each on its own thread with its own runtime queue and
// remote device (one session each), run the matrix-multiply tutorial at once through one server;
// every output is verified and every client gets the seeds' statistics.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "vta/rpc/server.h"
#include "vta/workloads/tutorials.h"

namespace vta::tutorials {
namespace {

TEST(RemoteTutorials, SixteenConcurrentClientsEachRunTheMatrixMultiply) {
  rpc::ServerOptions o;
  o.max_sessions = 16;
  o.threads = 4;
  rpc::Server server(o);
  const std::string target = "rpc://127.0.0.1:" + std::to_string(server.port());
  ASSERT_EQ(setenv("VTA_TARGET", target.c_str(), 1), 0);  // every thread's runtime opens its own device
  constexpr int kClients = 16;
  std::atomic<int> verified{0}, seed_stats{0};
  std::vector<std::string> errors(kClients);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      const Result r = matrix_multiply(uint32_t(i));
      if (!r.ran) errors[size_t(i)] = r.error;
      if (r.ran && r.outputs == 1024 && r.mismatches == 0) ++verified;
      if (r.stats.counters_equal(matrix_multiply_seed_stats())) ++seed_stats;
    });
  }
  for (auto& t : clients) t.join();
  unsetenv("VTA_TARGET");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int i = 0; i < kClients; ++i) EXPECT_EQ(errors[size_t(i)], "") << "client " << i;
  EXPECT_EQ(verified.load(), kClients);
  EXPECT_EQ(seed_stats.load(), kClients);
  const auto c = server.counters();
  std::printf("%d concurrent clients: %d verified, %d with the seeds' statistics, %llu sessions, %llu runs, %.2f s\n",
              kClients, verified.load(), seed_stats.load(), static_cast<unsigned long long>(c.sessions_opened),
              static_cast<unsigned long long>(c.runs), s);
  EXPECT_EQ(c.sessions_refused, 0u);
}

}  // namespace
}  // namespace vta::tutorials
