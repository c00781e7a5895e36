#pragma once
/// \file vta/compiler/pass.h
/// IR passes, one per source file (compiler/src/pass_*.cc): each takes IR and returns new IR.

#include <map>

#include "vta/compiler/env.h"
#include "vta/compiler/ir.h"
#include "vta/driver/isa.h"

namespace vta::compiler {

/// Variable -> replacement (variables compare by node).
using VarMap = std::map<const ExprNode*, Expr>;

/// Replaces variables (pass_substitute.cc).
Expr substitute(const Expr& e, const VarMap& m);
Stmt substitute(const Stmt& s, const VarMap& m);

/// Folds constants, removes identities (x + 0, x * 1), merges constant chains and removes loops
/// of extent 1 (pass_simplify.cc). Values are unchanged: int32 arithmetic wraps as the interpreter's.
Expr simplify(const Expr& e);
Stmt simplify(const Stmt& s);

/// The mock units (TVM's `env.mock`): nests under `pragma skip_dma_copy`, `pragma skip_alu` or
/// `tensorize skip_gemm` removed with the loops they leave empty, so that a program runs one unit's
/// work alone (pass_skip.cc).
Stmt remove_mocked(const Stmt& s);

/// Multi-dimensional accesses to row-major offsets into their buffers (pass_flatten.cc).
Stmt flatten(const Stmt& s);

/// Loop nests under `pragma dma_copy` to VTALoadBuffer2D / VTAStoreBuffer2D calls (pass_inject_dma.cc).
/// SRAM indices count VTA elements from the start of the buffer's SRAM (buffers of one scope are
/// placed one after another in program order).
Stmt inject_dma(const Stmt& s, const Env& env);

// ---- the VTA passes, in pipeline order (see lower.h) ----------------------------------------------

/// The variable the VTA annotations hang on (printed `vta`).
const Var& vta_var();
/// Stage numbers of the dependency queues (the runtime's queue ids, vta::Stage): load 1, compute 2,
/// store 3; the coprocessor pass uses 0 for a statement that mixes stages.
inline constexpr int kLoadStage = int(vta::Stage::kLoad);
inline constexpr int kComputeStage = int(vta::Stage::kCompute);
inline constexpr int kStoreStage = int(vta::Stage::kStore);

/// Every buffer written inside the virtual-thread loop gets a copy per thread: a leading dimension of
/// the thread count, indexed by the thread variable (pass_virtual_thread.cc). The thread loop must be
/// the outermost loop of the program.
Stmt replicate_thread_buffers(const Stmt& s);
/// An ALU stage computes in place: its output is renamed to its first operand (an accumulator buffer
/// read at the same indices and by no other stage) and its own buffer disappears (pass_inplace_alu.cc).
Stmt inplace_alu(const Stmt& s, const Env& env);
/// `tensorize gemm` regions become micro-ops `vta.uop_push(0, reset, acc, inp, wgt, 0, 0, 0)`; then
/// every loop nest around micro-ops becomes a GEMM kernel: its two outer loops fold into
/// VTAUopLoopBegin/End (index factors), the loops left are unrolled into micro-ops (pass_tensorize.cc).
Stmt tensorize_gemm(const Stmt& s, const Env& env);
/// `pragma alu` regions (element-wise over accumulator buffers) become ALU kernels: contiguous loops
/// fused, two outer loops folded, immediates detected (pass_inject_alu.cc).
Stmt inject_alu(const Stmt& s, const Env& env);
/// Groups the accelerator's statements into `coproc_scope` blocks of one stage each, inserts the
/// dependency-token pushes and pops between stages (and around loops that carry them), and the final
/// synchronisation (pass_coproc.cc). With `overlap_tiles`, the token that frees the load stage's
/// buffers after a reduction loop's last GEMM goes to the first load of the next tile (the loops
/// around the reduction carry it) instead of being drained after the loop and pushed again by the
/// next tile's first compute statement.
Stmt coproc_sync(const Stmt& s, bool overlap_tiles = false);
/// Replaces the virtual-thread loop by the threads' statements interleaved: loops are shared, each
/// block runs once per thread, as a `cthread` loop or unrolled (pass_virtual_thread.cc).
Stmt inject_virtual_threads(const Stmt& s);

}  // namespace vta::compiler
