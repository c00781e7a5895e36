#pragma once
/// \file vta/compiler/mutator.h
/// The base of the IR passes: walks an expression or statement and rebuilds it from the mutated
/// children. A pass overrides the node kinds it changes; everything else is copied through.

#include "vta/compiler/ir.h"

namespace vta::compiler {

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  Expr mutate(const Expr& e);
  Stmt mutate(const Stmt& s);

 protected:
  virtual Expr visit_var(const Expr& e) { return e; }
  /// Default: the same access with mutated indices.
  virtual Expr visit_read(const Expr& e);
  virtual Stmt visit_store(const Stmt& s);
  virtual Stmt visit_for(const Stmt& s);
  virtual Stmt visit_allocate(const Stmt& s);
  virtual Stmt visit_attr(const Stmt& s);
  std::vector<Expr> mutate_all(const std::vector<Expr>& v);
};

}  // namespace vta::compiler
