#pragma once
/// \file vta/compiler/names.h
/// The names the IR carries as strings: annotation keys (Attr nodes), intrinsic names (Call nodes) and
/// storage scopes. Every pass, the printer, the interpreter and the executor spell them from here.

#include <string_view>

namespace vta::compiler {

/// Attr keys. The schedule's annotations (Stage::pragma, tensorize, bind to cthread) come first; the
/// VTA passes add the coprocessor scopes.
namespace attr {
/// Prefix of every `pragma` annotation: Stage::pragma(axis, "dma_copy") is key "pragma_dma_copy".
inline constexpr const char* kPragmaPrefix = "pragma_";
inline constexpr const char* kPragmaDmaCopy = "pragma_dma_copy";  ///< a copy loop nest -> 2D DMA
inline constexpr const char* kPragmaAlu = "pragma_alu";           ///< an element-wise nest -> ALU kernel
/// The mock pragmas (TVM's `env.mock`): the nest does nothing at all, no DMA, no ALU operation.
inline constexpr const char* kPragmaSkipDmaCopy = "pragma_skip_dma_copy";
inline constexpr const char* kPragmaSkipAlu = "pragma_skip_alu";
/// Prefix of every `tensorize` annotation: Stage::tensorize(axis, "gemm") is key "tensorize_gemm".
inline constexpr const char* kTensorizePrefix = "tensorize_";
inline constexpr const char* kTensorizeGemm = "tensorize_gemm";  ///< a GEMM element -> micro-op
/// The mock GEMM (`env.mock.gemm`): no micro-op, no reset; the accumulator is left as it is.
inline constexpr const char* kTensorizeSkipGemm = "tensorize_skip_gemm";
/// The last, shorter iteration of a split whose factor does not divide its extent: the body with the
/// loop variable `var` bound to `value` (made by schedule_ops, gone after rebase_regions).
inline constexpr const char* kSplitTail = "split_tail";
inline constexpr const char* kVirtualThread = "virtual_thread";  ///< the loop bound to cthread
/// A block of statements of one stage; value = the stage (vta::Stage).
inline constexpr const char* kCoprocScope = "coproc_scope";
/// A micro-op kernel; value = kUopKernelGemm or kUopKernelAlu.
inline constexpr const char* kCoprocUopScope = "coproc_uop_scope";
inline constexpr int kUopKernelGemm = 0;
inline constexpr int kUopKernelAlu = 1;
}  // namespace attr

/// The pragma names Stage::pragma takes: VTA's units and their mock forms (TVM's `env.mock`).
inline constexpr const char* kPragmas[] = {"dma_copy", "alu", "skip_dma_copy", "skip_alu"};
/// The intrinsics Stage::tensorize takes: the GEMM core, and its mock form.
inline constexpr const char* kIntrinsicGemm = "gemm";
inline constexpr const char* kIntrinsicSkipGemm = "skip_gemm";

/// Call names: the runtime's C functions (printed as call_extern) and the VTA intrinsics (printed as
/// `@tir.vta.*`), executed by build() and, for the DMA calls, by the interpreter.
namespace intrin {
inline constexpr const char* kLoadBuffer2D = "VTALoadBuffer2D";
inline constexpr const char* kStoreBuffer2D = "VTAStoreBuffer2D";
inline constexpr const char* kUopLoopBegin = "VTAUopLoopBegin";
inline constexpr const char* kUopLoopEnd = "VTAUopLoopEnd";
inline constexpr const char* kPushGemmOp = "VTAPushGEMMOp";
inline constexpr const char* kPushAluOp = "VTAPushALUOp";
/// Prefix of the intrinsics below (printed as `@tir.vta.*`).
inline constexpr const char* kVtaPrefix = "vta.";
inline constexpr const char* kUopPush = "vta.uop_push";         ///< (mode, reset, dst, src, wgt, opcode, use_imm, imm)
inline constexpr const char* kDepPush = "vta.coproc_dep_push";  ///< (from stage, to stage)
inline constexpr const char* kDepPop = "vta.coproc_dep_pop";    ///< (from stage, to stage)
inline constexpr const char* kSync = "vta.coproc_sync";

/// What a call of the final program takes and where it may stand: the one description the module
/// reader checks every call against and the executor relies on.
struct Signature {
  const char* name;
  int args;        ///< the number of integer arguments
  bool tensors;    ///< a DMA: names the tensor written (`tensor`) and the tensor read (`src`); else neither
  bool in_kernel;  ///< only inside a micro-op kernel (Attr kCoprocUopScope); else only outside one
};
inline constexpr Signature kSignatures[] = {
    {kLoadBuffer2D, 10, true, false}, {kStoreBuffer2D, 6, true, false}, {kDepPush, 2, false, false},
    {kDepPop, 2, false, false},       {kSync, 0, false, false},         {kUopLoopBegin, 4, false, true},
    {kUopLoopEnd, 0, false, true},    {kUopPush, 8, false, true},
};
/// The signature of intrinsic `name`, nullptr when there is none.
inline const Signature* signature(std::string_view name) {
  for (const Signature& s : kSignatures) {
    if (name == s.name) return &s;
  }
  return nullptr;
}
}  // namespace intrin

/// The storage scope of DRAM tensors (on-chip scopes come from the Env).
inline constexpr const char* kGlobalScope = "global";

}  // namespace vta::compiler
