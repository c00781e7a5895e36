#include "vta/compiler/mutator.h"

namespace vta::compiler {

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& v) {
  std::vector<Expr> out;
  out.reserve(v.size());
  for (const auto& e : v) out.push_back(mutate(e));
  return out;
}

Expr IRMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::kInt: return e;
    case ExprKind::kVar: return visit_var(e);
    case ExprKind::kRead: return visit_read(e);
    case ExprKind::kCast: return make_cast(e->dtype, mutate(e->a));
    case ExprKind::kSelect: return make_select(mutate(e->cond), mutate(e->a), mutate(e->b));
    case ExprKind::kReduce: {
      std::vector<IterVar> axes;
      for (size_t i = 0; i < e->reduce_axes.size(); ++i) axes.push_back({e->reduce_axes[i], e->reduce_extents[i], true});
      return make_reduce(mutate(e->a), axes);
    }
    default: return make_binary(e->kind, mutate(e->a), mutate(e->b));
  }
}

Expr IRMutator::visit_read(const Expr& e) {
  return e->flat ? make_flat_read(e->tensor, mutate(e->indices[0])) : make_read(e->tensor, mutate_all(e->indices));
}

Stmt IRMutator::visit_store(const Stmt& s) {
  return s->flat ? make_flat_store(s->tensor, mutate(s->indices[0]), mutate(s->value))
                 : make_store(s->tensor, mutate_all(s->indices), mutate(s->value));
}

Stmt IRMutator::visit_for(const Stmt& s) { return make_for(s->var, s->extent, mutate(s->body)); }

Stmt IRMutator::visit_allocate(const Stmt& s) { return make_allocate(s->tensor, s->scope, mutate(s->body), s->shape); }

Stmt IRMutator::visit_attr(const Stmt& s) { return make_attr(s->var, s->scope, mutate(s->body), s->value); }

Stmt IRMutator::mutate(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kFor: return visit_for(s);
    case StmtKind::kStore: return visit_store(s);
    case StmtKind::kSeq: {
      std::vector<Stmt> v;
      for (const auto& x : s->seq) v.push_back(mutate(x));
      return make_seq(std::move(v));
    }
    case StmtKind::kAllocate: return visit_allocate(s);
    case StmtKind::kAttr: return visit_attr(s);
    case StmtKind::kCall: return make_call(s->scope, s->tensor, s->src, mutate_all(s->args));
  }
  throw InternalError("IRMutator: unknown statement");
}

}  // namespace vta::compiler
