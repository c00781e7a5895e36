#pragma once
// Micro-op kernels (internal to the GEMM and ALU passes): a loop nest around one micro-op becomes
//   attr [vta] "coproc_uop_scope" = "VTAPushGEMMOp" | "VTAPushALUOp" {
//     VTAUopLoopBegin(extent, dst_factor, src_factor, wgt_factor)   // up to two, the outer loops
//     for (...) { vta.uop_push(mode, reset, dst, src, wgt, opcode, use_imm, imm) }  // the rest, unrolled
//     VTAUopLoopEnd() ...
//   }
// The folded loops' variables become 0 in the micro-op; their index factors are the coefficients of
// the variable in dst, src and wgt. A kernel holding more micro-ops than the micro-op buffer is a
// ScheduleError naming `where`.

#include <string>
#include <vector>

#include "vta/compiler/env.h"
#include "vta/compiler/ir.h"

namespace vta::compiler {

/// Micro-op argument positions.
enum UopArg : size_t { kUopMode = 0, kUopReset, kUopDst, kUopSrc, kUopWgt, kUopOpcode, kUopUseImm, kUopImm };

Stmt make_uop_kernel(const std::vector<Loop>& loops, const std::vector<Expr>& push, bool alu, const Env& env,
                     const std::string& where);

}  // namespace vta::compiler
