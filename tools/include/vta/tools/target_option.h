#pragma once
/// \file vta/tools/target_option.h
/// The --target option of the example programs: any registered backend ("fsim", "tsim") or a scheme
/// address ("rpc://127.0.0.1:9091"), checked when the command line is parsed; and the network
/// programs' fast-forward options (--tsim-steps, --detailed-target).

#include <CLI/CLI.hpp>
#include <string>

#include "vta/driver/device.h"

namespace vta::tools {

inline CLI::Validator target_validator() {
  return CLI::Validator(
      [](std::string& target) -> std::string {
        if (is_known_target(target)) return {};
        std::string known;
        for (const auto& n : backend_names()) known += n + ", ";
        for (const auto& s : backend_schemes()) known += s + "HOST:PORT, ";
        return "unknown VTA target \"" + target + "\" (known: " + known.substr(0, known.size() - 2) + ")";
      },
      "TARGET");
}

/// Fast-forward (vta/network/target.h fast_forward_target): the VTA steps FIRST:LAST on a clocked
/// backend, every other on --target (which backends can be used: vta::network::fast_forward_refusal).
struct FastForwardOptions {
  std::string steps;            ///< "FIRST:LAST" (or one step); empty: no fast-forward
  std::string target = "tsim";  ///< the detailed backend: tsim or systemc
};

/// Adds --tsim-steps and --detailed-target; `example` names a step of the program's network.
inline void add_fast_forward_options(CLI::App& app, FastForwardOptions& o, const std::string& example) {
  app.add_option("--tsim-steps", o.steps,
                 "fast-forward: run the VTA steps FIRST:LAST (step names, e.g. " + example +
                     ") on the tsim, cycle by cycle, and every other on --target (the fsim), over the same device "
                     "memory");
  app.add_option("--detailed-target", o.target, "the backend of --tsim-steps: tsim (default) or systemc")
      ->check(CLI::IsMember({"tsim", "systemc"}));
}

}  // namespace vta::tools
