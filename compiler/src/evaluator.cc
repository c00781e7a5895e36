#include "evaluator.h"

#include "vta/compiler/printer.h"

namespace vta::compiler {

int64_t Evaluator::value_of(const ExprNode* v) const {
  auto it = vars_.find(v);
  if (it == vars_.end())
    throw InternalError(who_ + ": variable " + static_cast<const VarNode*>(v)->name + " is not bound");
  return it->second;
}

int64_t Evaluator::visit_read(const Expr& e, const ReadNode&) {
  throw InternalError(who_ + ": cannot evaluate " + to_text(e) + " on the host");
}

int64_t Evaluator::visit_reduce(const Expr&, const ReduceNode&) {
  throw InternalError(who_ + ": an unlowered reduction");
}

}  // namespace vta::compiler
