#include "vta/compiler/pass.h"

namespace vta::compiler {
namespace {

bool is_int(const Expr& e, int64_t v) { return e->kind == ExprKind::kInt && e->value == v; }


}  // namespace

Expr simplify(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kInt:
    case ExprKind::kVar: return e;
    case ExprKind::kRead: {
      std::vector<Expr> idx;
      for (const auto& i : e->indices) idx.push_back(simplify(i));
      return e->flat ? make_flat_read(e->tensor, idx[0]) : make_read(e->tensor, std::move(idx));
    }
    case ExprKind::kCast: {
      Expr a = simplify(e->a);
      if (a->kind == ExprKind::kInt) return make_int(wrap(a->value, e->dtype), e->dtype);
      return a->dtype == e->dtype ? a : make_cast(e->dtype, a);
    }
    case ExprKind::kSelect: {
      Expr c = simplify(e->cond);
      if (c->kind == ExprKind::kInt) return simplify(c->value ? e->a : e->b);
      return make_select(c, simplify(e->a), simplify(e->b));
    }
    case ExprKind::kReduce: return make_reduce(simplify(e->a), [&] {
      std::vector<IterVar> axes;
      for (size_t i = 0; i < e->reduce_axes.size(); ++i) axes.push_back({e->reduce_axes[i], e->reduce_extents[i], true});
      return axes;
    }());
    default: break;
  }
  Expr a = simplify(e->a), b = simplify(e->b);
  const DType t = e->dtype;
  if (a->kind == ExprKind::kInt && b->kind == ExprKind::kInt && e->kind != ExprKind::kShr &&
      e->kind != ExprKind::kFloorDiv && e->kind != ExprKind::kFloorMod) {
    int64_t r = 0;
    switch (e->kind) {
      case ExprKind::kAdd: r = a->value + b->value; break;
      case ExprKind::kSub: r = a->value - b->value; break;
      case ExprKind::kMul: r = a->value * b->value; break;
      case ExprKind::kMin: r = std::min(a->value, b->value); break;
      case ExprKind::kMax: r = std::max(a->value, b->value); break;
      case ExprKind::kLt: r = a->value < b->value; break;
      case ExprKind::kGe: r = a->value >= b->value; break;
      case ExprKind::kAnd: r = a->value && b->value; break;
      default: return make_binary(e->kind, a, b);
    }
    return make_int(wrap(r, t), t);
  }
  switch (e->kind) {
    case ExprKind::kAdd:
      if (is_int(a, 0)) return b;
      if (is_int(b, 0)) return a;
      // (x + c1) + c2 -> x + (c1 + c2)
      if (b->kind == ExprKind::kInt && a->kind == ExprKind::kAdd && a->b->kind == ExprKind::kInt) {
        return simplify(make_binary(ExprKind::kAdd, a->a, make_int(wrap(a->b->value + b->value, t), t)));
      }
      break;
    case ExprKind::kSub:
      if (is_int(b, 0)) return a;
      break;
    case ExprKind::kMul:
      if (is_int(a, 1)) return b;
      if (is_int(b, 1)) return a;
      if (is_int(a, 0) || is_int(b, 0)) return make_int(0, t);
      // (x * c1) * c2 -> x * (c1 * c2)
      if (b->kind == ExprKind::kInt && a->kind == ExprKind::kMul && a->b->kind == ExprKind::kInt) {
        return make_binary(ExprKind::kMul, a->a, make_int(wrap(a->b->value * b->value, t), t));
      }
      break;
    case ExprKind::kAnd:
      if (is_int(a, 1)) return b;
      if (is_int(b, 1)) return a;
      break;
    default: break;
  }
  return make_binary(e->kind, a, b);
}

Stmt simplify(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kFor:
      if (s->extent == 1) return simplify(substitute(s->body, {{s->var.get(), make_int(0)}}));
      return make_for(s->var, s->extent, simplify(s->body));
    case StmtKind::kStore: {
      std::vector<Expr> idx;
      for (const auto& i : s->indices) idx.push_back(simplify(i));
      return s->flat ? make_flat_store(s->tensor, idx[0], simplify(s->value))
                     : make_store(s->tensor, std::move(idx), simplify(s->value));
    }
    case StmtKind::kSeq: {
      std::vector<Stmt> v;
      for (const auto& x : s->seq) v.push_back(simplify(x));
      return make_seq(std::move(v));
    }
    case StmtKind::kAllocate: return make_allocate(s->tensor, s->scope, simplify(s->body), s->shape);
    case StmtKind::kAttr: return make_attr(s->var, s->scope, simplify(s->body), s->value);
    case StmtKind::kCall: {
      std::vector<Expr> args;
      for (const auto& a : s->args) args.push_back(simplify(a));
      return make_call(s->scope, s->tensor, s->src, std::move(args));
    }
  }
  throw InternalError("simplify: unknown statement");
}

}  // namespace vta::compiler
