#pragma once
/// \file vta/tools/target_option.h
/// The --target option of the example programs: any registered backend ("fsim", "tsim") or a scheme
/// address ("rpc://127.0.0.1:9091"), checked when the command line is parsed (vta::check_target: a
/// usage error, exit status 2); and the network programs' fast-forward options (--tsim-steps,
/// --detailed-target). Their --jobs: vta/tools/jobs_option.h.

#include <CLI/CLI.hpp>
#include <string>

#include "vta/driver/device.h"

namespace vta::tools {

/// The --target option's help, the same in every program.
inline constexpr const char* kTargetHelp =
    "backend: fsim, tsim, systemc, fpga (a board, docs/FPGA.md) or rpc://HOST:PORT (default: VTA_TARGET, else fsim)";

inline CLI::Validator target_validator() {
  return CLI::Validator(
      [](std::string& target) -> std::string {
        try {
          check_target(target);  // an unknown backend, a malformed rpc:// address
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "TARGET");
}

/// The --remote option: run on a device server, `how` says through what (its help begins with it);
/// the value is "local" (a server in this process, serving --target) or a device server's HOST:PORT,
/// checked as an rpc:// target's address is (a usage error when malformed).
inline CLI::Option* add_remote_option(CLI::App& app, std::string& address, const std::string& how) {
  return app
      .add_option("--remote", address,
                  "run on a device server " + how +
                      ": HOST:PORT of a vta-device-server, or 'local' for a server in this process (serving --target)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (value == "local") return {};
            try {
              check_target("rpc://" + value);
              return {};
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
          },
          "HOST:PORT|local"));
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
