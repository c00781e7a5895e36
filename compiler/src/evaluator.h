#pragma once
// The evaluation of expressions under variable bindings (internal to the compiler): the one arithmetic
// of the reference interpreter (lower.h run()) and of the executor of built modules (build.cc).

#include <map>
#include <string>

#include "vta/compiler/visitor.h"

namespace vta::compiler {

class Evaluator : public ExprFunctor<int64_t> {
 public:
  /// `who` prefixes the errors ("run", "build").
  explicit Evaluator(std::string who) : who_(std::move(who)) {}

  int64_t eval(const Expr& e) { return dispatch(e); }
  /// Loop variables bound while their loop body runs.
  void bind(const Var& v, int64_t value) { vars_[v.get()] = value; }
  void unbind(const Var& v) { vars_.erase(v.get()); }
  /// The value of a bound variable (InternalError naming it otherwise).
  int64_t value_of(const ExprNode* v) const;

 protected:
  int64_t visit_int(const Expr&, const IntNode& op) override { return op.value; }
  int64_t visit_var(const Expr& e, const VarNode&) override { return value_of(e.get()); }
  int64_t visit_binary(const Expr& e, const BinaryNode& op) override {
    return wrap(eval_binary(e, eval(op.a), eval(op.b)), op.dtype);
  }
  int64_t visit_select(const Expr&, const SelectNode& op) override {
    return eval(op.cond) != 0 ? eval(op.a) : eval(op.b);
  }
  int64_t visit_cast(const Expr&, const CastNode& op) override { return wrap(eval(op.value), op.dtype); }
  /// Tensor reads: only where there is host storage (the interpreter); an InternalError by default.
  int64_t visit_read(const Expr& e, const ReadNode& op) override;
  int64_t visit_reduce(const Expr& e, const ReduceNode& op) override;

  const std::string who_;

 private:
  std::map<const ExprNode*, int64_t> vars_;
};

}  // namespace vta::compiler
