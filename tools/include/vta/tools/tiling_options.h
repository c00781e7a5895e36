#pragma once
/// \file vta/tools/tiling_options.h
/// The tiling search of the programs that run whole networks (vta-resnet18, vta-onnx): a wider search
/// (`--tune`), each convolution's tiling from a file (`--tilings`, vta/network/tuning.h) and the chosen
/// tilings written to one (`--save-tilings`). One set of flags, one meaning, in both programs.

#include <CLI/CLI.hpp>
#include <string>

#include "vta/driver/config.h"
#include "vta/network/executor.h"
#include "vta/network/tuning.h"

namespace vta::tools {

struct TilingOptions {
  std::string file;   ///< --tilings
  std::string save;   ///< --save-tilings
  bool tune = false;  ///< --tune
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
}

/// The executor's plan the flags ask for (a tilings file tuned for another configuration, or naming
/// tilings that do not fit, is refused by load_tilings before anything is built).
inline network::PlanOptions plan_options(const TilingOptions& o, const Config& config) {
  network::PlanOptions plan;
  if (!o.file.empty()) plan.tilings = network::load_tilings(o.file, config);
  if (o.tune) plan.candidates = kTunedTilings, plan.tried = kTunedTilings;
  return plan;
}

/// Writes the executor's tilings when `--save-tilings` asked for them.
inline void save_tilings_if_asked(const TilingOptions& o, const network::Executor& ex, const Config& config) {
  if (!o.save.empty()) network::save_tilings(o.save, ex.tilings(), config);
}

}  // namespace vta::tools
