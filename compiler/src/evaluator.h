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
  int64_t visit_int(const Expr& e) override { return e->value; }
  int64_t visit_var(const Expr& e) override { return value_of(e.get()); }
  int64_t visit_binary(const Expr& e) override { return wrap(eval_binary(e, eval(e->a), eval(e->b)), e->dtype); }
  int64_t visit_select(const Expr& e) override { return eval(e->cond) != 0 ? eval(e->a) : eval(e->b); }
  int64_t visit_cast(const Expr& e) override { return wrap(eval(e->a), e->dtype); }
  /// Tensor reads: only where there is host storage (the interpreter); an InternalError by default.
  int64_t visit_read(const Expr& e) override;
  int64_t visit_reduce(const Expr& e) override;

  const std::string who_;

 private:
  std::map<const ExprNode*, int64_t> vars_;
};

}  // namespace vta::compiler
