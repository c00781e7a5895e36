#pragma once
/// \file vta/network/tuning.h
/// Tuned tilings (docs/NETWORK.md, "Tuned tilings"): the tiling of each VTA convolution step of a
/// network for one configuration, found by a wider search than the executor's default (every ranked
/// candidate built and estimated), saved to a file and given back to the executor
/// (PlanOptions::tilings), so a configuration runs a network with its own tilings.

#include <filesystem>
#include <map>
#include <string>

#include "vta/driver/config.h"
#include "vta/network/plan.h"

namespace vta::network {

/// Tilings by step name.
using TilingTable = std::map<std::string, ConvTiling>;

/// Writes `tilings` for `config` as JSON ({"format": "vta-tilings-1", "config": {...}, "steps":
/// {name: {"oc_block", "h_block", "w_block", "ic_block", "virtual_threads"}}}).
void save_tilings(const std::filesystem::path& path, const TilingTable& tilings, const Config& config);
/// Reads a file save_tilings wrote; throws GraphError naming the file and the entry when it is not
/// one, when a value is not a positive block count, or when it was tuned for another configuration.
TilingTable load_tilings(const std::filesystem::path& path, const Config& config);

}  // namespace vta::network
