#pragma once
/// \file vta/network/onnx.h
/// Bringing a model in (docs/MODELS.md), every step: onnx_import.h (an ONNX file read into a float
/// graph), float_reference.h (that graph run in plain C++), calibration.h (where calibration inputs
/// come from) and quantize.h (post-training quantization into int8 operators for VTA). Include the
/// one a file needs; this header is for programs that use them all.

#include "vta/network/calibration.h"      // IWYU pragma: export
#include "vta/network/float_reference.h"  // IWYU pragma: export
#include "vta/network/onnx_import.h"      // IWYU pragma: export
#include "vta/network/quantize.h"         // IWYU pragma: export
