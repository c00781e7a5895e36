#pragma once
// The VTA programs the executor builds, each written with the compiler's schedule primitives as the
// tutorials write theirs: a convolution with its fused chain (conv_program.cc) and a max pool on the
// ALU (pool_program.cc).

#include <vector>

#include "vta/compiler/env.h"
#include "vta/compiler/schedule.h"
#include "vta/network/graph.h"
#include "vta/network/plan.h"
#include "vta/network/tiling.h"

namespace vta::network {

struct Program {
  compiler::Schedule schedule;
  std::vector<compiler::Tensor> args;  ///< in the order the executor passes its tensors
};

/// How the executor builds its programs: the load stage runs a tile ahead (its buffers are free once
/// a tile's last GEMM is done; the ALU stages and accumulator loads that end the tile overlap it).
compiler::BuildOptions build_options();

/// VTA convolution step `step` (step.residual decided) blocked by `tiling`. Arguments: data, kernel,
/// [residual], [shortcut data, shortcut kernel], result.
Program conv_program(const Graph& g, const Step& step, const compiler::Env& env, const ConvTiling& tiling);

/// VTA max pool step `step` blocked by `tiling` (c_block channel blocks = oc_block, h_block output
/// rows, the whole width). Arguments: data, result.
Program pool_program(const Graph& g, const Step& step, const compiler::Env& env, const ConvTiling& tiling);

/// `program` built with build_options().
compiler::Module build_program(const Program& program, const compiler::Env& env);

}  // namespace vta::network
