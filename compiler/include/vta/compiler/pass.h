#pragma once
/// \file vta/compiler/pass.h
/// IR passes, one per source file (compiler/src/pass_*.cc): each takes IR and returns new IR.

#include <map>

#include "vta/compiler/env.h"
#include "vta/compiler/ir.h"

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

/// Multi-dimensional accesses to row-major offsets into their buffers (pass_flatten.cc).
Stmt flatten(const Stmt& s);

/// Loop nests under `pragma dma_copy` to VTALoadBuffer2D / VTAStoreBuffer2D calls (pass_inject_dma.cc).
Stmt inject_dma(const Stmt& s, const Env& env);

}  // namespace vta::compiler
