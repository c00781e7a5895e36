#pragma once
// The VTA programs the executor builds, each written with the compiler's schedule primitives as the
// tutorials write theirs: a convolution with its fused chain (conv_program.cc), and a pool or an
// upsample on the ALU (pool_program.cc).

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

/// The ALU stages a VTA step runs after its sum (a convolution's, an average pool's), each an
/// accumulator tensor of the output's blocked `shape`: shr, relu, clip (MAX then MIN) and the
/// per-channel bias (loaded into the accumulator, shifted left there, added to every pixel).
class AluChain {
 public:
  AluChain(const Graph& g, const compiler::Env& env, std::vector<int64_t> shape)
      : g_(g), env_(env), shape_(std::move(shape)) {}
  /// `op` after `prev`; the last stage's tensor. Throws GraphError for an operator the ALU does not run.
  compiler::Tensor elementwise(const Op& op, compiler::Tensor prev, const std::string& prefix = "");
  compiler::Tensor add_bias(const Op& op, const compiler::Tensor& prev, const std::string& prefix = "");
  compiler::Tensor scale_channels(const Op& op, const compiler::Tensor& prev, const std::string& prefix = "");
  /// Every stage, in order (those the caller adds too: push them here).
  std::vector<compiler::Tensor>& stages() { return alu_; }
  /// The bias argument and its accumulator buffer (empty without a bias_add).
  const compiler::Tensor& bias() const { return bias_; }
  const compiler::Tensor& bias_buf() const { return bias_buf_; }
  /// The factors argument (scale_channels) and its accumulator buffer (empty without one).
  const compiler::Tensor& scale() const { return scale_; }
  const compiler::Tensor& scale_buf() const { return scale_buf_; }

 private:
  const Graph& g_;
  const compiler::Env& env_;
  std::vector<int64_t> shape_;
  std::vector<compiler::Tensor> alu_;
  compiler::Tensor bias_, bias_buf_;
  compiler::Tensor scale_, scale_buf_;
  std::vector<int64_t> channel_vector(const std::string& name, compiler::Tensor& arg, compiler::Tensor& buf);
};

/// How the executor builds its programs: the load stage runs a tile ahead (its buffers are free once
/// a tile's last GEMM is done; the ALU stages and accumulator loads that end the tile overlap it).
compiler::BuildOptions build_options();

/// VTA convolution step `step` (step.residual decided) blocked by `tiling`. Arguments: data, kernel,
/// [bias], [factors], [residual], [shortcut data, shortcut kernel, [shortcut bias], [shortcut factors]], result.
Program conv_program(const Graph& g, const Step& step, const compiler::Env& env, const ConvTiling& tiling);

/// VTA max or average pool step `step` blocked by `tiling` (c_block channel blocks = oc_block,
/// h_block output rows, the whole width); an average pool's sum with its chain (bias_add, shr, clip,
/// cast). Arguments: data, [bias], result.
Program pool_program(const Graph& g, const Step& step, const compiler::Env& env, const ConvTiling& tiling);

/// VTA nearest upsample step `step` (factors op.kernel x op.stride) blocked by `tiling` (c_block
/// channel blocks = oc_block, h_block input rows, the whole width): the input copied on the ALU.
/// Arguments: data, the result as (N/BATCH, C/BLOCK, H, fh, W, fw, BATCH, BLOCK) (a view of the
/// output's blocked tensor).
Program upsample_program(const Graph& g, const Step& step, const compiler::Env& env, const ConvTiling& tiling);

/// `program` built with build_options().
compiler::Module build_program(const Program& program, const compiler::Env& env);

}  // namespace vta::network
