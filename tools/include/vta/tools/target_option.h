#pragma once
/// \file vta/tools/target_option.h
/// The --target option of the example programs: any registered backend ("fsim", "tsim") or a scheme
/// address ("rpc://127.0.0.1:9091"), checked when the command line is parsed.

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

}  // namespace vta::tools
