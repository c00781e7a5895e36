#pragma once
/// \file vta/tools/jobs_option.h
/// --jobs / -j of the programs that run whole networks (vta-onnx, vta-resnet18), under the executor's
/// rule for it (vta/network/executor.h: resolve_jobs, kMaxJobs).

#include <CLI/CLI.hpp>

#include "vta/network/executor.h"

namespace vta::tools {

/// --jobs / -j (vta/network/executor.h RunOptions::jobs): how many steps run at once, each on a thread
/// and a device of its own, from the reference's values of its inputs. 0 means one per core; `jobs`
/// holds the resolved count after parsing (unchanged when the option is not given).
inline void add_jobs_option(CLI::App& app, unsigned& jobs) {
  app.add_option_function<unsigned>(
         "--jobs,-j", [&jobs](const unsigned& n) { jobs = network::resolve_jobs(n); },
         "run this many steps at once, each on a thread and a device of its own and each from the "
         "reference's values of its inputs (the same outputs, statistics and verdict when every step "
         "verifies; a device server runs one at a time); 0: one per core")
      ->check(CLI::Range(0U, network::kMaxJobs));
}

}  // namespace vta::tools
