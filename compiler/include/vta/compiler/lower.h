#pragma once
/// \file vta/compiler/lower.h
/// Lowering a schedule to a loop nest: the pass list. Its programs are printed by printer.h and run
/// on host buffers by interpreter.h (the independent check of every later pass), both included here.

#include <ostream>

#include "vta/compiler/env.h"
#include "vta/compiler/interpreter.h"  // IWYU pragma: export
#include "vta/compiler/printer.h"      // IWYU pragma: export
#include "vta/compiler/schedule.h"

namespace vta::compiler {

/// The loop nests of every stage in order; intermediates (tensors not in `args`) are allocated in
/// their stage's scope. A stage computed at a loop gets a buffer of its inferred region only, indexed
/// from the region's start. With an Env, a region in an SRAM scope must fit its buffer (ScheduleError
/// naming the stage, the scope and the sizes).
Stmt lower(const Schedule& s, const std::vector<Tensor>& args, const Env* env = nullptr);

struct LowerOptions {
  const Env* env = nullptr;
  /// With an Env: run every VTA pass (tensorization, ALU, virtual threads, tokens), giving the
  /// program build() runs; without: stop after the DMA injection (the tutorials' middle steps).
  bool vta = false;
  bool flatten = false;         ///< end with 1-D buffers (as the seeds' listings)
  std::ostream* log = nullptr;  ///< the IR after every pass, under "// after <pass>"
  /// Let the load stage fill the next tile's input and weight buffers while the compute stage
  /// finishes the current tile (its ALU stages, accumulator loads, the next reset): coproc_sync's
  /// `overlap_tiles` (pass.h). Off by default: the tutorials' programs are the seeds'.
  bool overlap_tiles = false;
};
/// The pass list: schedule_ops (loop nests, bound inference), rebase_regions, simplify; with an Env
/// [replicate_thread_buffers, inplace_alu], inject_dma, [tensorize_gemm, inject_alu, coproc_sync,
/// inject_virtual_threads, simplify] (bracketed: options.vta); then [flatten].
Stmt lower(const Schedule& s, const std::vector<Tensor>& args, const LowerOptions& options);

}  // namespace vta::compiler
