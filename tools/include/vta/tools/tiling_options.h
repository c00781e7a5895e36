#pragma once
/// \file vta/tools/tiling_options.h
/// The tiling search of the programs that run whole networks (vta-resnet18, vta-onnx): a wider search
/// (`--tune`), each convolution's tiling from a file (`--tilings`, vta/network/tuning.h), the chosen
/// tilings written to one (`--save-tilings`), and the compute stage they are chosen for
/// (`--compute-issue 2 [--window W]`, network::PlanOptions). One set of flags, one meaning, in both
/// programs.

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>

#include "vta/driver/config.h"
#include "vta/driver/timeline.h"
#include "vta/network/executor.h"
#include "vta/network/tuning.h"

namespace vta::tools {

struct TilingOptions {
  std::string file;             ///< --tilings
  std::string save;             ///< --save-tilings
  bool tune = false;            ///< --tune
  int max_virtual_threads = 4;  ///< --max-virtual-threads
  int compute_issue = 0;        ///< --compute-issue (0: the configuration's)
  size_t window = 1;            ///< --window
};

/// How many ranked tilings `--tune` builds and estimates per convolution (the default search: the
/// first PlanOptions::tried of PlanOptions::candidates).
inline constexpr int kTunedTilings = 64;

inline void add_tiling_options(CLI::App& app, TilingOptions& o) {
  app.add_option("--tilings", o.file, "run each convolution with the tiling this file names (--save-tilings)")
      ->check(CLI::ExistingFile);
  app.add_flag("--tune", o.tune,
               "search every ranked tiling of each convolution (" + std::to_string(kTunedTilings) +
                   ", all estimated) instead of the first " + std::to_string(network::kTilingsTried));
  app.add_option("--save-tilings", o.save, "write the tiling of each convolution to this file");
  app.add_option("--max-virtual-threads", o.max_virtual_threads,
                 "the most virtual threads a convolution's tiling may have (3 and 4 are kept only when estimated 2 % "
                 "faster: they move more data; 2 gives the search of commit b8d319d and before)")
      ->check(CLI::Range(1, 4));
  app.add_option(
         "--compute-issue", o.compute_issue,
         "the compute stage the programs are made for: 1 one instruction at a time, 2 an ALU instruction beside a "
         "GEMM (the RTL of a configuration with \"COMPUTE_ISSUE\": 2; tilings ranked by its estimate, each virtual "
         "thread's accumulator in a region of its own; the programs run on any --target); default: the "
         "configuration's")
      ->check(CLI::IsMember({1, 2}));
  app.add_option("--window", o.window,
                 "with --compute-issue 2: the dispatch window the programs are ranked for (vta/driver/compute_issue.h; "
                 "the RTL's is 1)")
      ->check(CLI::Range(1, 64));
}

/// The executor's plan the flags ask for (a tilings file tuned for another configuration, or naming
/// tilings that do not fit, is refused by load_tilings before anything is built).
inline network::PlanOptions plan_options(const TilingOptions& o, const Config& config) {
  network::PlanOptions plan;
  if (!o.file.empty()) plan.tilings = network::load_tilings(o.file, config);
  if (o.tune) plan.candidates = kTunedTilings, plan.tried = kTunedTilings;
  const int issue = EstimateOptions{.compute_issue = o.compute_issue}.issue(config);  // 0: the configuration's
  if (o.window > 1 && issue != 2) throw std::invalid_argument("--window needs --compute-issue 2");
  plan.max_virtual_threads = o.max_virtual_threads;
  plan.compute_issue = issue;
  plan.window = o.window;
  return plan;
}

/// The estimated cycles of every VTA step's program (Step::estimated_cycles, for the stage the programs
/// were made for), as one line.
inline std::string estimate_line(const network::Executor& ex, const TilingOptions& o) {
  uint64_t cycles = 0;
  for (const network::Step& s : ex.steps()) cycles += s.estimated_cycles;
  std::string stage = "one instruction at a time";
  if (ex.plan().compute_issue == 2) {
    stage = "two at once, vta/driver/compute_issue.h, window " + std::to_string(o.window);
  }
  return "estimated cycles of the VTA steps: " + std::to_string(cycles) + " (compute stage: " + stage + ")";
}

/// Writes the executor's tilings when `--save-tilings` asked for them.
inline void save_tilings_if_asked(const TilingOptions& o, const network::Executor& ex, const Config& config) {
  if (!o.save.empty()) network::save_tilings(o.save, ex.tilings(), config);
}

}  // namespace vta::tools
