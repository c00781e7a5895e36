#pragma once
/// \file vta/compiler/build.h
/// Building a schedule into a module that runs on the VTA runtime: the full VTA pass list (lower.h with
/// options.vta), then an executor that walks the final program and makes the runtime calls it names
/// (VTALoadBuffer2D, VTAStoreBuffer2D, VTAPushGEMMOp / VTAPushALUOp with micro-op kernels,
/// VTADepPush / VTADepPop, VTASynchronize) on a runtime context (vta/runtime/context.h): the one given,
/// or the calling thread's (its own over VTA_TARGET: fsim, tsim, ...).
///
///   Module m = build(s, {data, weight, res}, env);
///   m({&data_dev, &weight_dev, &res_dev});   // throws RuntimeError with the runtime's message
///   m.call(ctx, {data_buf, weight_buf, res_buf});  // on a context of its own

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "vta/compiler/lower.h"
#include "vta/runtime/context.h"
#include "vta/runtime/tensor.h"

namespace vta::compiler {

/// The runtime or the device reported an error while a module ran.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A module file that cannot be read: not JSON, another format or version, another hardware
/// configuration, or a bad node (the message names its path, e.g. "program.seq[3].args[1]").
class ModuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The device tensor type of a module argument of type `t` (int8, int32, int4); throws ScheduleError
/// for bool, which never lives on the device. The one mapping between the two type lists.
runtime::DType device_dtype(DType t);
/// Bytes of tensor `t` on the device (int4 elements two a byte).
size_t device_bytes(const Tensor& t);

/// Bounds on one call of a module. The host's part, the loops and calls the executor interprets, is
/// counted before anything runs (Module::host_steps(): a program has no branches, so the count is
/// exact); the device's runs have their own cycle budgets.
struct CallLimits {
  /// The default bound of host steps: 256 times the largest program this project builds (a ResNet-18
  /// step's 262,659; docs/COMPILER.md).
  static constexpr uint64_t kDefaultMaxHostSteps = uint64_t{1} << 26;
  uint64_t max_host_steps = kDefaultMaxHostSteps;
  /// When set (by another thread: a server stopping), the call stops at its next loop iteration with a
  /// RuntimeError, its batch discarded.
  const std::atomic<bool>* cancel = nullptr;
};

class Module {
 public:
  /// `hardware`: the configuration's bitstream name (Config::bitstream_name) the program was built for;
  /// empty: this build's (vta::build_config()).
  Module(Stmt program, std::vector<Tensor> args, std::string target, std::string hardware = "");
  /// The module as data: the final lowered program, its tensors and arguments, the configuration it
  /// was built for, as JSON (format "vta-module", version 1). Never native code.
  std::string to_json() const;
  /// Reads to_json()'s output; `origin` names the source in errors. Throws ModuleError.
  static Module from_json(std::string_view text, const std::string& origin = "<module>");
  void save(const std::string& path) const;
  static Module load(const std::string& path);
  /// The final lowered program (what `lower(s, args, {env, vta = true})` prints).
  const Stmt& program() const { return program_; }
  const std::vector<Tensor>& args() const { return args_; }
  /// The backend the module was built for ("" when any).
  const std::string& target() const { return target_; }
  /// The hardware configuration it was built for (Config::bitstream_name): running it on a device of
  /// another is an error naming both.
  const std::string& hardware() const { return hardware_; }
  /// Runs once with one device tensor per argument, in order, on the calling thread's runtime
  /// (runtime::Context::current()); shapes and types must match the arguments'. Returns when the
  /// accelerator has finished (VTASynchronize).
  void operator()(const std::vector<const runtime::DeviceTensor*>& tensors, const CallLimits& limits = {}) const;
  /// Runs once on `ctx` with runtime buffer handles (VTABufferAlloc's, or `ctx.wrap_buffer`'s), one per
  /// argument, each at least as large as its argument (checked); the element layout is the caller's
  /// to get right. Throws RuntimeError when the call would exceed `limits`, is cancelled, or a runtime
  /// call fails (the first failed call stops the program; the batch is discarded).
  void call(runtime::Context& ctx, const std::vector<void*>& buffers, const CallLimits& limits = {}) const;
  /// The statements one call executes on the host: every loop iteration, call and block, kernels'
  /// bodies counted each time they are reached (an upper bound when the runtime caches them);
  /// saturates at UINT64_MAX.
  uint64_t host_steps() const { return host_steps_; }

 private:
  Stmt program_;
  std::vector<Tensor> args_;
  std::string target_;
  std::string hardware_;
  uint64_t host_steps_ = 0;
  // one runtime kernel handle per micro-op kernel of the program (the runtime caches kernels by it)
  std::shared_ptr<std::map<const StmtNode*, void*>> kernels_;
};

struct BuildOptions {
  /// The backend the module must run on ("fsim", "tsim"); empty: whichever the runtime uses
  /// (VTA_TARGET). Running on another backend is an error naming both.
  std::string target;
  std::ostream* log = nullptr;  ///< the IR after every pass
  bool overlap_tiles = false;   ///< LowerOptions::overlap_tiles (the load stage runs a tile ahead)
};

Module build(const Schedule& s, const std::vector<Tensor>& args, const Env& env, const BuildOptions& options = {});

}  // namespace vta::compiler
