#pragma once
// The tutorials compiled from their schedules (examples/matrix_multiply_opt.cc,
// examples/convolution_opt.cc): each declares the computation, schedules it step by step as the
// tutorial does (printing the lowered program after each step to `steps` when given), builds it, runs
// it on the runtime's device (VTA_TARGET) and verifies every output against a plain C++ reference.
// The shapes and tilings are parameters: the tutorials' values are the defaults, the tests vary them.

#include <cstdint>
#include <ostream>
#include <vector>

#include "tutorials.h"

namespace vta::tutorials {

struct MatmulShape {
  int64_t batch = 1, in_channels = 1024, out_channels = 1024;
  int64_t b_block = 1, o_block = 16, i_block = 16;  ///< tile sizes in VTA blocks
  int64_t virtual_threads = 1;
  bool epilogue = true;  ///< >> shift, clip to [0, 127] on the ALU (else: truncate the sums to int8)
  int shift = 8;
};
Result compiled_matrix_multiply(uint32_t seed, std::ostream* steps = nullptr, const MatmulShape& shape = {});

struct ConvShape {
  int64_t batch = 1, height = 14, width = 14, in_channels = 256, out_channels = 256;
  int64_t kernel = 3, pad = 1, stride = 1;
  int64_t b_block = 1, oc_block = 8, h_block = 7, w_block = 14, ic_block = 1;  ///< tiles (blocks / pixels)
  int64_t virtual_threads = 2;
  int shift = 8;
  /// Store each output row of a tile with one 2D transfer (h_block rows of w_block elements). The
  /// tutorial (false) stores one element per instruction.
  bool store_rows = false;
};
Result compiled_convolution(uint32_t seed, std::ostream* steps = nullptr, const ConvShape& shape = {});

/// The ResNet-18 convolutions VTA runs (every layer but the first 7x7 one), for the default 1x16
/// configuration, each with a tiling that fits the default SRAMs with two virtual threads.
struct NamedConv {
  const char* name;  ///< e.g. "56x56 64->128 k3 s2"
  ConvShape shape;
};
std::vector<NamedConv> resnet18_convolutions();

}  // namespace vta::tutorials
