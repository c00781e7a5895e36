#pragma once
// The parts of the vta._core extension, each binding one layer of the C++ stack (python/src/core.cc
// makes the module and binds the compiler and the runtime).

#include <pybind11/pybind11.h>

#include <atomic>
#include <csignal>
#include <optional>
#include <type_traits>
#include <utility>

#include "vta/driver/interrupt.h"

namespace vta::python {

/// A call that may run long (a module call, a network run, a replay), run without the GIL. On Python's
/// main thread, SIGINT and SIGTERM during the call are recorded (vta/driver/interrupt.h): a clocked run
/// stops at its next slice, a module's host loop at its next iteration (cancel()), and once the call
/// has ended the signal is delivered to what Python had installed: SIGINT raises KeyboardInterrupt,
/// SIGTERM does what it would have done without the call (by default, ends the process).
class InterruptibleCall {
 public:
  InterruptibleCall() {
    const pybind11::module_ threading = pybind11::module_::import("threading");
    if (threading.attr("current_thread")().is(threading.attr("main_thread")())) scope_.emplace();
  }
  InterruptibleCall(const InterruptibleCall&) = delete;
  InterruptibleCall& operator=(const InterruptibleCall&) = delete;
  /// The flag a cancellable loop polls (compiler::CallLimits::cancel); nullptr off the main thread.
  const std::atomic<bool>* cancel() const { return scope_ ? &stop_requested() : nullptr; }
  /// Runs `call` without the GIL and returns what it returns; a signal that came during it wins over
  /// the call's own error (the run it stopped reports one).
  template <class F>
  auto run(F&& call) {
    // (counted only where a signal is recorded: a call on another thread, a device server's, says
    // nothing about whether a signal sent now stops the main thread's)
    struct InProgress {
      explicit InProgress(bool count) : counted(count) {
        if (counted) ++calls_in_progress();
      }
      ~InProgress() {
        if (counted) --calls_in_progress();
      }
      InProgress(const InProgress&) = delete;
      InProgress& operator=(const InProgress&) = delete;
      bool counted;
    };
    try {
      const InProgress in_progress(scope_.has_value());
      pybind11::gil_scoped_release unlocked;  // a long run lets other Python threads go on
      if constexpr (std::is_void_v<decltype(call())>) {
        call();
        deliver();
      } else {
        auto result = call();
        deliver();
        return result;
      }
    } catch (...) {
      deliver();  // (once: a signal delivered already ended the scope)
      throw;
    }
  }
  /// Calls in progress on Python's main thread, their signals recorded (what a test waits for before it
  /// sends a signal: one sent while this is above 0 reaches a call).
  static std::atomic<int>& calls_in_progress() {
    static std::atomic<int> n{0};
    return n;
  }

 private:
  // Ends the scope (the previous handlers back) and hands a recorded signal to them.
  void deliver() {
    if (!scope_) return;
    const int sig = stop_signal();
    scope_.reset();
    if (sig == 0) return;
    const pybind11::gil_scoped_acquire locked;
    ::raise(sig);
    if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
  }
  std::optional<StopSignals> scope_;
};

/// vta.network: graphs of quantized operators, ResNet-18, the executor (vta/network/*.h).
void bind_network(pybind11::module_& m, const pybind11::object& base_error);
/// Cost estimates and timelines of modules, captured runs and their replays.
void bind_observability(pybind11::module_& m, const pybind11::object& base_error);
/// Sessions on a device server: Remote, RemoteArray, RemoteModule, connect, local_session (remote.cc).
void bind_remote(pybind11::module_& m);

}  // namespace vta::python
