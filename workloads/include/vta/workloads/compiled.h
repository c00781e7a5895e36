#pragma once
// The tutorials compiled from their schedules (workloads/src/matrix_multiply_opt.cc,
// workloads/src/convolution_opt.cc): each declares the computation, schedules it step by step as the
// tutorial does (printing the lowered program after each step to `steps` when given), builds it, runs
// it on the runtime's device (VTA_TARGET) and verifies every output against a plain C++ reference.
// The shapes and tilings are parameters: the tutorials' values are the defaults, the tests vary them.

#include <cstdint>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "vta/compiler/build.h"
#include "vta/compiler/env.h"
#include "vta/compiler/te.h"
#include "vta/driver/packing.h"
#include "vta/workloads/tutorials.h"

namespace vta::rpc {
class Remote;
}

namespace vta::tutorials {

/// A module's run failed: the runtime's or the device's message (a Result's error). Anything else a
/// runner throws (no device, a lost server) is not the program's fault and goes to the caller.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The upper bound of the tutorials' clip: 127, or 7 on a configuration of 4-bit outputs.
inline int out_max(const compiler::Env& env) { return lane_max(env.config.out_width()); }

/// Where a compiled tutorial runs its module. Every module's arguments are inputs followed by one
/// output, each of int8 values (int4 ones packed and unpacked on the way); run() returns the output and the statistics
/// of the call alone, and throws RunError when the run fails.
class ModuleRunner {
 public:
  virtual ~ModuleRunner() = default;
  virtual std::vector<int8_t> run(const compiler::Module& module, const std::vector<std::vector<int8_t>>& inputs,
                                  Stats& stats) = 0;
};
/// On the runtime's device in this process (VTA_TARGET): DeviceTensors, Module::operator().
ModuleRunner& local_runner();
/// On a device server, as the tutorials' "RPC setup" does: the module uploaded as a file
/// (Module::to_json), loaded there, remote tensors, one call.
std::unique_ptr<ModuleRunner> remote_runner(rpc::Remote& remote);

struct MatmulShape {
  int64_t batch = 1, in_channels = 1024, out_channels = 1024;
  int64_t b_block = 1, o_block = 16, i_block = 16;  ///< tile sizes in VTA blocks
  int64_t virtual_threads = 1;
  bool epilogue = true;  ///< >> shift, clip to [0, out_max] on the ALU (else: truncate the sums)
  bool clip = true;      ///< with the epilogue: the clip too (else the shifted sums are truncated)
  int shift = 8;
};

/// The matrix multiply tutorial's computation, in VTA's tiled layout (its "computation declaration"):
/// res = clip((data x weight^T) >> shift, 0, out_max) as env.inp_dtype, with the copies into the on-chip buffers.
/// Declared once, here: the compiled tutorial schedules it, the compiler's tests break its schedule.
struct MatmulDeclaration {
  compiler::Tensor data, weight;          ///< the arguments (and res)
  compiler::Tensor data_buf, weight_buf;  ///< their copies (dma_copy)
  compiler::IterVar ic, ic_tns;           ///< the reduction over input blocks and within a block
  compiler::Tensor res_gem, res_shr, res_max, res_min, res;
  std::vector<compiler::Tensor> acc_stages;  ///< what the schedule puts in the accumulator, in order
  std::vector<compiler::Tensor> alu_stages;  ///< the epilogue's ALU stages
};
MatmulDeclaration declare_matrix_multiply(const compiler::Env& env, const MatmulShape& shape = {});
Result compiled_matrix_multiply(uint32_t seed, std::ostream* steps = nullptr, const MatmulShape& shape = {},
                                ModuleRunner& runner = local_runner());

struct ConvShape {
  int64_t batch = 1, height = 14, width = 14, in_channels = 256, out_channels = 256;
  int64_t kernel = 3, pad = 1, stride = 1;
  int64_t b_block = 1, oc_block = 8, h_block = 7, w_block = 14, ic_block = 1;  ///< tiles (blocks / pixels)
  int64_t virtual_threads = 2;
  int shift = 8;
  /// Store each output row of a tile with one 2D transfer (h_block rows of w_block elements). The
  /// tutorial (false) stores one element per instruction.
  bool store_rows = false;
  /// Build with BuildOptions::overlap_tiles: the next tile's loads overlap this tile's epilogue.
  bool overlap_tiles = false;
  /// Build with Env::thread_banks: each virtual thread's accumulator buffers in a region of their own.
  bool thread_banks = false;
};
/// The convolution tutorial's computation, declared once: the compiled tutorial schedules it, and so do
/// the compiler's tests. The tiling fields of `shape` are the schedule's, not used here.
struct ConvDeclaration {
  compiler::Tensor data, kernel;          ///< the arguments (and res)
  compiler::Tensor data_buf, kernel_buf;  ///< the padded input and the weight copy (dma_copy)
  compiler::IterVar ic, dy, dx, ic_tns;   ///< the reduction: input blocks, kernel rows and columns, within a block
  compiler::Tensor res_conv, res_shr, res_max, res_min, res;
};
ConvDeclaration declare_convolution(const compiler::Env& env, const ConvShape& shape = {});
Result compiled_convolution(uint32_t seed, std::ostream* steps = nullptr, const ConvShape& shape = {},
                            ModuleRunner& runner = local_runner());

/// The ResNet-18 convolutions VTA runs (every layer but the first 7x7 one), for the default 1x16
/// configuration, each with a tiling that fits the default SRAMs with two virtual threads.
struct NamedConv {
  const char* name;  ///< e.g. "56x56 64->128 k3 s2"
  ConvShape shape;
};
std::vector<NamedConv> resnet18_convolutions();

}  // namespace vta::tutorials
