#include <map>
#include <optional>
#include <utility>

#include "linear.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

bool is_int(const Expr& e, int64_t v) { return e->kind == ExprKind::kInt && e->value == v; }

/// Inclusive value range of an expression.
struct Bounds {
  int64_t lo, hi;
};

/// The simplifier: constant folding, identities, sums in one canonical order, and min/max whose
/// outcome the ranges of the enclosing loops already decide.
class Simplifier final : public IRMutator {
 public:
  using IRMutator::mutate;

 private:
  Expr visit_binary(const Expr& e) override { return binary(e, mutate(e->a), mutate(e->b)); }
  Expr visit_cast(const Expr& e) override {
    Expr a = mutate(e->a);
    if (a->kind == ExprKind::kInt) return make_int(wrap(a->value, e->dtype), e->dtype);
    return a->dtype == e->dtype ? a : make_cast(e->dtype, a);
  }
  Expr visit_select(const Expr& e) override {
    Expr c = mutate(e->cond);
    if (c->kind == ExprKind::kInt) return mutate(c->value ? e->a : e->b);
    return make_select(c, mutate(e->a), mutate(e->b));
  }
  Stmt visit_for(const Stmt& s) override {
    if (s->extent == 1) return mutate(substitute(s->body, {{s->var.get(), make_int(0)}}));
    ranges_[s->var.get()] = Bounds{0, s->extent - 1};
    Stmt body = mutate(s->body);
    ranges_.erase(s->var.get());
    return make_for(s->var, s->extent, body);
  }

  Expr binary(const Expr& e, Expr a, Expr b);
  Expr canonical_sum(const Expr& e) const;
  std::optional<Bounds> bounds(const Expr& e) const;

  std::map<const ExprNode*, Bounds> ranges_;  ///< loop variables in scope: [0, extent - 1]
};

std::optional<Bounds> Simplifier::bounds(const Expr& e) const {
  switch (e->kind) {
    case ExprKind::kInt: return Bounds{e->value, e->value};
    case ExprKind::kVar: {
      auto it = ranges_.find(e.get());
      if (it == ranges_.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMin:
    case ExprKind::kMax: {
      const auto a = bounds(e->a), b = bounds(e->b);
      if (!a || !b) return std::nullopt;
      if (e->kind == ExprKind::kAdd) return Bounds{a->lo + b->lo, a->hi + b->hi};
      if (e->kind == ExprKind::kSub) return Bounds{a->lo - b->hi, a->hi - b->lo};
      if (e->kind == ExprKind::kMin) return Bounds{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
      return Bounds{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    case ExprKind::kMul: {
      const Expr& k = e->b->kind == ExprKind::kInt ? e->b : e->a;
      const Expr& x = e->b->kind == ExprKind::kInt ? e->a : e->b;
      if (k->kind != ExprKind::kInt) return std::nullopt;
      const auto a = bounds(x);
      if (!a) return std::nullopt;
      const int64_t p = a->lo * k->value, q = a->hi * k->value;
      return Bounds{std::min(p, q), std::max(p, q)};
    }
    default: return std::nullopt;
  }
}

// An index sum is rebuilt from its affine form: terms in order of appearance, then the constant
// (`x + 3`, `x - 14`); a sum whose first term is subtracted starts with the constant (`9 - x`).
Expr Simplifier::canonical_sum(const Expr& e) const {
  const Linear f = to_linear(e);
  const DType t = e->dtype;
  auto term = [&](const Expr& x, int64_t k) { return k == 1 ? x : make_binary(ExprKind::kMul, x, make_int(k, t)); };
  Expr r;
  for (const auto& [x, k] : f.terms) {
    if (!r) {
      r = k > 0 ? term(x, k) : make_binary(ExprKind::kSub, make_int(wrap(f.c, t), t), term(x, -k));
    } else {
      r = k > 0 ? make_binary(ExprKind::kAdd, r, term(x, k)) : make_binary(ExprKind::kSub, r, term(x, -k));
    }
  }
  if (!r) return make_int(wrap(f.c, t), t);
  if (f.terms.front().second < 0 || f.c == 0) return r;
  return f.c > 0 ? make_binary(ExprKind::kAdd, r, make_int(wrap(f.c, t), t))
                 : make_binary(ExprKind::kSub, r, make_int(wrap(-f.c, t), t));
}

Expr Simplifier::binary(const Expr& e, Expr a, Expr b) {
  const DType t = e->dtype;
  if (a->kind == ExprKind::kInt && b->kind == ExprKind::kInt && e->kind != ExprKind::kShr &&
      e->kind != ExprKind::kFloorDiv && e->kind != ExprKind::kFloorMod) {
    return make_int(wrap(eval_binary(e, a->value, b->value), t), t);
  }
  switch (e->kind) {
    case ExprKind::kAdd:
    case ExprKind::kSub:
      if (t == DType::kInt32) return canonical_sum(make_binary(e->kind, a, b));
      if (is_int(b, 0)) return a;
      if (e->kind == ExprKind::kAdd && is_int(a, 0)) return b;
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
    case ExprKind::kMin:
    case ExprKind::kMax: {
      // decided by the ranges: min(x, c) is x when x never exceeds c, and so on
      const auto ba = bounds(a), bb = bounds(b);
      if (ba && bb) {
        const bool min = e->kind == ExprKind::kMin;
        if (min ? ba->hi <= bb->lo : ba->lo >= bb->hi) return a;
        if (min ? bb->hi <= ba->lo : bb->lo >= ba->hi) return b;
      }
      break;
    }
    case ExprKind::kAnd:
      if (is_int(a, 1)) return b;
      if (is_int(b, 1)) return a;
      break;
    default: break;
  }
  return make_binary(e->kind, a, b);
}

}  // namespace

Expr simplify(const Expr& e) { return Simplifier().mutate(e); }
Stmt simplify(const Stmt& s) { return Simplifier().mutate(s); }

}  // namespace vta::compiler
