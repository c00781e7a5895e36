#pragma once
// Shared by the tutorial tests: a file's text, and a run's runtime call trace (VTA_TRACE_CALLS)
// compared with a golden trace in tests/golden/.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "test_paths.h"
#include "vta/runtime.h"
#include "vta/workloads/tutorials.h"

namespace vta::tutorials {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `run` with the call trace on and expects the trace to equal tests/golden/`golden`.
inline void expect_trace(const std::function<Result()>& run, const char* golden) {
  const auto path = vta::test::scratch_path("vta_trace.txt");
  ASSERT_EQ(setenv("VTA_TRACE_CALLS", path.c_str(), 1), 0);
  VTARuntimeShutdown();  // the next queue opens the trace file
  const Result r = run();
  VTARuntimeShutdown();  // closes it
  unsetenv("VTA_TRACE_CALLS");
  ASSERT_TRUE(r.ok()) << r.error << " (" << r.mismatches << " mismatches)";
  const std::string got = read_text(path), want = read_text(vta::test::source_path("tests/golden") / golden);
  std::filesystem::remove(path);
  ASSERT_FALSE(want.empty()) << golden;
  EXPECT_EQ(got, want) << "the runtime call trace differs from the golden " << golden;
}

}  // namespace vta::tutorials
