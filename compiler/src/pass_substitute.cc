#include "vta/compiler/pass.h"

namespace vta::compiler {

Expr substitute(const Expr& e, const VarMap& m) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::kInt: return e;
    case ExprKind::kVar: {
      auto it = m.find(e.get());
      return it == m.end() ? e : it->second;
    }
    case ExprKind::kRead: {
      std::vector<Expr> idx;
      for (const auto& i : e->indices) idx.push_back(substitute(i, m));
      return e->flat ? make_flat_read(e->tensor, idx[0]) : make_read(e->tensor, std::move(idx));
    }
    case ExprKind::kCast: return make_cast(e->dtype, substitute(e->a, m));
    case ExprKind::kSelect: return make_select(substitute(e->cond, m), substitute(e->a, m), substitute(e->b, m));
    case ExprKind::kReduce: throw InternalError("substitute: a reduction inside an expression");
    default: return make_binary(e->kind, substitute(e->a, m), substitute(e->b, m));
  }
}

Stmt substitute(const Stmt& s, const VarMap& m) {
  switch (s->kind) {
    case StmtKind::kFor: return make_for(s->var, s->extent, substitute(s->body, m));
    case StmtKind::kStore: {
      std::vector<Expr> idx;
      for (const auto& i : s->indices) idx.push_back(substitute(i, m));
      return s->flat ? make_flat_store(s->tensor, idx[0], substitute(s->value, m))
                     : make_store(s->tensor, std::move(idx), substitute(s->value, m));
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> v;
      for (const auto& x : s->seq) v.push_back(substitute(x, m));
      return make_seq(std::move(v));
    }
    case StmtKind::kAllocate: return make_allocate(s->tensor, s->scope, substitute(s->body, m), s->shape);
  }
  throw InternalError("substitute: unknown statement");
}

}  // namespace vta::compiler
