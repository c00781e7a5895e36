#pragma once
/// \file vta/driver/interrupt.h
/// SIGINT and SIGTERM while the process waits on something long (a clocked run, a module call from
/// Python): the one place that records them so the wait can end cleanly instead of the process dying
/// mid-write or the signal being lost.
///
/// While at least one StopSignals scope is alive (any thread), both signals are recorded, not acted on:
/// the handler stores the signal and puts the previous disposition back, so a second signal acts as if
/// no wait were in progress (by default, or under guarded_main's handler: the process ends). The waits
/// look at stop_signal() at their slice boundaries and once more after their scope has ended (a signal
/// that came with the last slice is never lost); the previous handlers are restored when the last
/// scope ends.

#include <sys/types.h>

#include <atomic>

namespace vta {

class StopSignals {
 public:
  StopSignals();   ///< the first live scope clears the record and installs the recording handler
  ~StopSignals();  ///< the last one puts the previous handlers back
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

/// The signal recorded since the first of the live (or last) scopes began; 0 when none.
int stop_signal() noexcept;
/// Set with stop_signal(): a flag a cancellable loop can poll (compiler::CallLimits::cancel).
const std::atomic<bool>& stop_requested() noexcept;
/// The signal that stopped a wait at any time in this process (never cleared): what a program's
/// `main` reports as its exit status, 128 + the signal (vta/driver/guarded_main.h).
int process_stop_signal() noexcept;

/// A child process (a converter the process waits for) registered for as long as it runs, so that an
/// interrupt ending the process ends it too instead of leaving it working for nobody.
class ChildProcess {
 public:
  explicit ChildProcess(pid_t pid);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

 private:
  pid_t pid_;
};
/// Sends SIGTERM to every registered child. Async-signal-safe (kill only): for an interrupt handler.
void stop_children() noexcept;

}  // namespace vta
