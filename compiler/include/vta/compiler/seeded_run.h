#pragma once
/// \file vta/compiler/seeded_run.h
/// A built module run on its own with generated inputs: every argument but the last filled with
/// seeded random values (int8 or int32 in [-128, 127]), one call on a runtime of its own over the
/// given device, the statistics and the output (the last argument). Two backends given the same
/// module and seed must agree byte for byte (`vta run --seed`, a sweep's `suite` workload).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vta/compiler/build.h"
#include "vta/driver/capture.h"
#include "vta/driver/device.h"

namespace vta::compiler {

struct SeededRun {
  CapturedResult result;    ///< status, error and the statistics of the call
  std::string output_name;  ///< the last argument's name
  size_t output_elements = 0;
  std::vector<uint8_t> output;  ///< its bytes (int8, or int32 little-endian), empty when the call failed
  /// FNV-1a (64-bit) of `output`.
  uint64_t checksum() const;
};

/// Runs `module` once on `device` (its memory: Dram::global()) with inputs from `seed`. Throws
/// std::invalid_argument for a module without arguments; a failed call is a result, not an exception.
SeededRun run_seeded(const Module& module, std::unique_ptr<Device> device, uint32_t seed);

}  // namespace vta::compiler
