#pragma once
/// \file vta/driver/build_config.h
/// The configuration this build was generated for (CMake option VTA_CONFIG), as a vta::Config. The
/// numbers come from the generated vta/hw_config.h, so C code using vta/hw_spec.h and C++ code using
/// vta::Config agree by construction. Defined in one translation unit of the driver
/// (src/build_config.cc): code that only calls it is the same for every configuration.

#include "vta/driver/config.h"

namespace vta {

/// The build configuration; validated once (the generator already refused an invalid one).
const Config& build_config();

}  // namespace vta
