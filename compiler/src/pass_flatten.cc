// Flattening: every multi-dimensional access becomes one row-major offset into its buffer (the
// allocation's extents for intermediates, the tensor's shape for arguments), as the seeds print.

#include "vta/compiler/pass.h"

namespace vta::compiler {
namespace {

struct Flatten {
  std::map<const TensorNode*, std::vector<int64_t>> shapes;

  Expr offset(const Tensor& t, const std::vector<Expr>& idx) const {
    auto it = shapes.find(t.get());
    const std::vector<int64_t>& shape = it == shapes.end() ? t->shape : it->second;
    // sum of index * stride, outermost first (the seeds' form: ((co*16384) + (ic*256)) + ...)
    std::vector<int64_t> stride(idx.size(), 1);
    for (size_t d = idx.size(); d-- > 1;) stride[d - 1] = stride[d] * shape[d];
    Expr off;
    for (size_t d = 0; d < idx.size(); ++d) {
      Expr term = simplify(expr(idx[d]) * stride[d]);
      if (term->kind == ExprKind::kInt && term->value == 0) continue;
      off = off ? off + term : term;
    }
    return off ? simplify(off) : make_int(0);
  }
  Expr expr(const Expr& e) const {
    if (!e) return e;
    switch (e->kind) {
      case ExprKind::kInt:
      case ExprKind::kVar: return e;
      case ExprKind::kRead: return e->flat ? e : make_flat_read(e->tensor, offset(e->tensor, e->indices));
      case ExprKind::kCast: return make_cast(e->dtype, expr(e->a));
      case ExprKind::kSelect: return make_select(expr(e->cond), expr(e->a), expr(e->b));
      case ExprKind::kReduce: throw InternalError("flatten: an unlowered reduction");
      default: return make_binary(e->kind, expr(e->a), expr(e->b));
    }
  }
  Stmt stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kFor: return make_for(s->var, s->extent, stmt(s->body));
      case StmtKind::kStore:
        return s->flat ? s : make_flat_store(s->tensor, offset(s->tensor, s->indices), expr(s->value));
      case StmtKind::kSeq: {
        std::vector<Stmt> v;
        for (const auto& x : s->seq) v.push_back(stmt(x));
        return make_seq(std::move(v));
      }
      case StmtKind::kAllocate: {
        shapes[s->tensor.get()] = s->shape;
        return make_allocate(s->tensor, s->scope, stmt(s->body), s->shape);
      }
    }
    throw InternalError("flatten: unknown statement");
  }
};

}  // namespace

Stmt flatten(const Stmt& s) { return Flatten{}.stmt(s); }

}  // namespace vta::compiler
