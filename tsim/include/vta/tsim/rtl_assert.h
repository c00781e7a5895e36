#pragma once
/// \file vta/tsim/rtl_assert.h
/// Failures of the RTL's assertions (hw/prim/vta_assert.svh), as reported through the DPI function
/// vta_assert_failed by a model built with assertions. A log collects the failures of the models
/// evaluated on its thread while it is active; the tsim fails the run naming the first one, the
/// hardware tests fail the test. With no log active a failure is printed to stderr.

#include <cstdint>
#include <string>
#include <vector>

namespace vta::tsim {

struct AssertionFailure {
  std::string name;  ///< the assertion's label, e.g. "WriteHeldUntilReady"
  std::string path;  ///< its place in the hierarchy, e.g. "TOP.vta_top.u_vme.u_ar_slice.WriteHeldUntilReady"
  std::string file;  ///< the source that states it
  int line = 0;
  uint64_t count = 1;  ///< how many evaluations failed (an assertion may fail on consecutive cycles)
  /// "<path> (file:line)".
  std::string to_string() const;
};

class AssertionLog {
 public:
  /// Makes `log` receive the failures on this thread until the scope ends (scopes nest).
  class Scope {
   public:
    explicit Scope(AssertionLog& log);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    AssertionLog* outer_;
  };

  bool empty() const { return failures_.empty(); }
  /// Distinct assertions in the order they first failed (at most kMaxDistinct).
  const std::vector<AssertionFailure>& failures() const { return failures_; }
  void clear() { failures_.clear(); }
  void record(const char* name, const char* path, const char* file, int line);
  /// "RTL assertion <first> failed by cycle <cycle> (...)" and one line per failure, each line ended;
  /// clears the log (what a run's diagnostic says: RegisterBus::take_fault).
  std::string take_report(uint64_t cycle);

  static constexpr size_t kMaxDistinct = 64;

 private:
  std::vector<AssertionFailure> failures_;
};

}  // namespace vta::tsim

/// The DPI function of vta_assert_pkg.
extern "C" void vta_assert_failed(const char* name, const char* path, const char* file, int line);
