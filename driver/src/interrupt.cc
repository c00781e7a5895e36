#include "vta/driver/interrupt.h"

#include <array>
#include <csignal>
#include <mutex>

namespace vta {

namespace {
std::atomic<int> g_signal{0};
std::atomic<int> g_process_signal{0};
std::atomic<bool> g_requested{false};
std::mutex g_mu;
int g_scopes = 0;
struct sigaction g_previous[2];
constexpr int kSignals[2] = {SIGINT, SIGTERM};

extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  g_process_signal.store(sig);
  g_requested.store(true);
  ::sigaction(sig, &g_previous[sig == SIGINT ? 0 : 1], nullptr);
}
}  // namespace

StopSignals::StopSignals() {
  std::lock_guard lock(g_mu);
  if (g_scopes++ > 0) return;
  g_signal.store(0);
  g_requested.store(false);
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 2; ++i) ::sigaction(kSignals[i], &sa, &g_previous[i]);
}

StopSignals::~StopSignals() {
  std::lock_guard lock(g_mu);
  if (--g_scopes > 0) return;
  for (int i = 0; i < 2; ++i) {
    // (a signal already taken put its previous handler back itself)
    struct sigaction current = {};
    ::sigaction(kSignals[i], nullptr, &current);
    if (current.sa_handler == on_stop_signal) ::sigaction(kSignals[i], &g_previous[i], nullptr);
  }
}

int stop_signal() noexcept { return g_signal.load(); }
const std::atomic<bool>& stop_requested() noexcept { return g_requested; }
int process_stop_signal() noexcept { return g_process_signal.load(); }

namespace {
std::array<std::atomic<pid_t>, 64> g_children{};
}  // namespace

ChildProcess::ChildProcess(pid_t pid) : pid_(pid) {
  for (auto& slot : g_children) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, pid)) break;
  }
}

ChildProcess::~ChildProcess() {
  for (auto& slot : g_children) {
    pid_t expected = pid_;
    if (slot.compare_exchange_strong(expected, 0)) break;
  }
}

void stop_children() noexcept {
  for (auto& slot : g_children) {
    if (const pid_t pid = slot.load(); pid > 0) ::kill(pid, SIGTERM);
  }
}

}  // namespace vta
