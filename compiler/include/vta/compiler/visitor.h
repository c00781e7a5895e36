#pragma once
/// \file vta/compiler/visitor.h
/// The compiler's traversal layer, generated from the node-kind lists of ir.h:
///  - ExprFunctor<R> / StmtFunctor<R>: dispatch on the kind to one handler per kind (pure virtual), the
///    base of anything that computes a value from a node (the interpreter's evaluator);
///  - IRVisitor: reads a tree; every handler visits the node's children by default, so a pass
///    overrides only the kinds it looks at;
///  - IRMutator: rebuilds a tree; every handler rebuilds its node from the mutated children by default.
/// Adding a kind to VTA_IR_EXPR_KINDS / VTA_IR_STMT_KINDS makes every class here refuse to compile until
/// the kind's handler exists.

#include <functional>
#include <map>
#include <set>

#include "vta/compiler/ir.h"

namespace vta::compiler {

template <typename R>
class ExprFunctor {
 public:
  virtual ~ExprFunctor() = default;
  /// The handler of `e`'s kind.
  R dispatch(const Expr& e) {
    switch (e->kind) {
#define VTA_IR_DISPATCH(kind, handler, node) \
  case ExprKind::k##kind: return visit_##handler(e, static_cast<const node##Node&>(*e));
      // the binary kinds share a handler
      // NOLINTNEXTLINE(bugprone-branch-clone)
      VTA_IR_EXPR_KINDS(VTA_IR_DISPATCH)
#undef VTA_IR_DISPATCH
    }
    throw InternalError(std::string("unknown expression kind ") + to_string(e->kind));
  }

 protected:
  virtual R visit_int(const Expr& e, const IntNode& op) = 0;
  virtual R visit_var(const Expr& e, const VarNode& op) = 0;
  virtual R visit_binary(const Expr& e, const BinaryNode& op) = 0;  ///< every kind of VTA_IR_BINARY_KINDS
  virtual R visit_select(const Expr& e, const SelectNode& op) = 0;
  virtual R visit_cast(const Expr& e, const CastNode& op) = 0;
  virtual R visit_read(const Expr& e, const ReadNode& op) = 0;
  virtual R visit_reduce(const Expr& e, const ReduceNode& op) = 0;
};

template <typename R>
class StmtFunctor {
 public:
  virtual ~StmtFunctor() = default;
  R dispatch(const Stmt& s) {
    switch (s->kind) {
#define VTA_IR_DISPATCH(kind, handler, node) \
  case StmtKind::k##kind: return visit_##handler(s, static_cast<const node##Node&>(*s));
      VTA_IR_STMT_KINDS(VTA_IR_DISPATCH)
#undef VTA_IR_DISPATCH
    }
    throw InternalError(std::string("unknown statement kind ") + to_string(s->kind));
  }

 protected:
  virtual R visit_for(const Stmt& s, const ForNode& op) = 0;
  virtual R visit_store(const Stmt& s, const StoreNode& op) = 0;
  virtual R visit_seq(const Stmt& s, const SeqNode& op) = 0;
  virtual R visit_allocate(const Stmt& s, const AllocateNode& op) = 0;
  virtual R visit_attr(const Stmt& s, const AttrNode& op) = 0;
  virtual R visit_call(const Stmt& s, const CallNode& op) = 0;
};

/// Read-only traversal: visit(x) calls the handler of x's kind, whose default visits x's children
/// (expressions: operands, condition, indices; statements: indices, values, arguments, bodies).
class IRVisitor : protected ExprFunctor<void>, protected StmtFunctor<void> {
 public:
  /// Null-safe.
  void visit(const Expr& e) {
    if (e) ExprFunctor<void>::dispatch(e);
  }
  void visit(const Stmt& s) {
    if (s) StmtFunctor<void>::dispatch(s);
  }

 protected:
  void visit_int(const Expr&, const IntNode&) override {}
  void visit_var(const Expr&, const VarNode&) override {}
  void visit_binary(const Expr& e, const BinaryNode& op) override;
  void visit_select(const Expr& e, const SelectNode& op) override;
  void visit_cast(const Expr& e, const CastNode& op) override;
  void visit_read(const Expr& e, const ReadNode& op) override;
  void visit_reduce(const Expr& e, const ReduceNode& op) override;
  void visit_for(const Stmt& s, const ForNode& op) override;
  void visit_store(const Stmt& s, const StoreNode& op) override;
  void visit_seq(const Stmt& s, const SeqNode& op) override;
  void visit_allocate(const Stmt& s, const AllocateNode& op) override;
  void visit_attr(const Stmt& s, const AttrNode& op) override;
  void visit_call(const Stmt& s, const CallNode& op) override;
  void visit_all(const std::vector<Expr>& v);
};

/// Rebuilding traversal: mutate(x) calls the handler of x's kind, whose default makes a node of the
/// same kind from the mutated children (the make_* checks apply to the result).
class IRMutator : protected ExprFunctor<Expr>, protected StmtFunctor<Stmt> {
 public:
  /// Null-safe.
  Expr mutate(const Expr& e) { return e ? ExprFunctor<Expr>::dispatch(e) : e; }
  Stmt mutate(const Stmt& s) { return s ? StmtFunctor<Stmt>::dispatch(s) : s; }

 protected:
  Expr visit_int(const Expr& e, const IntNode&) override { return e; }
  Expr visit_var(const Expr& e, const VarNode&) override { return e; }
  Expr visit_binary(const Expr& e, const BinaryNode& op) override;
  Expr visit_select(const Expr& e, const SelectNode& op) override;
  Expr visit_cast(const Expr& e, const CastNode& op) override;
  Expr visit_read(const Expr& e, const ReadNode& op) override;
  Expr visit_reduce(const Expr& e, const ReduceNode& op) override;
  Stmt visit_for(const Stmt& s, const ForNode& op) override;
  Stmt visit_store(const Stmt& s, const StoreNode& op) override;
  Stmt visit_seq(const Stmt& s, const SeqNode& op) override;
  Stmt visit_allocate(const Stmt& s, const AllocateNode& op) override;
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override;
  Stmt visit_call(const Stmt& s, const CallNode& op) override;
  std::vector<Expr> mutate_all(const std::vector<Expr>& v);
};

/// A mutator whose rewrites may leave statements empty (an empty sequence): the loops, annotations and
/// sequences they empty go with them (removing passes derive from it).
class PruningMutator : public IRMutator {
 protected:
  static bool empty(const Stmt& s);
  Stmt visit_for(const Stmt& s, const ForNode& op) override;
  Stmt visit_seq(const Stmt& s, const SeqNode& op) override;
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override;
};

/// A mutator whose reads and stores of the tensors `to` maps are of their replacements, at the same
/// indices (a stage's buffer renamed to another's, a copy of a tensor in one part of a program).
class RenameTensors : public IRMutator {
 public:
  explicit RenameTensors(std::map<const TensorNode*, Tensor> to) : to_(std::move(to)) {}
  using IRMutator::mutate;

 protected:
  Expr visit_read(const Expr& e, const ReadNode& op) override;
  Stmt visit_store(const Stmt& s, const StoreNode& op) override;
  /// Whether `t` is renamed.
  bool renamed(const Tensor& t) const { return to_.count(t.get()) != 0; }

 private:
  std::map<const TensorNode*, Tensor> to_;
};

/// Calls `f` on `e` and every expression inside it, parents before children.
void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f);
/// Calls `f` on every expression of the statement tree `s` (indices, values, arguments, annotation
/// values), parents before children.
void for_each_expr(const Stmt& s, const std::function<void(const Expr&)>& f);
/// Calls `f` on `s` and every statement inside it, parents before children.
void for_each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f);
/// Whether `e` contains one of the nodes `nodes` (variables, typically).
bool uses_any(const Expr& e, const std::set<const ExprNode*>& nodes);

}  // namespace vta::compiler
