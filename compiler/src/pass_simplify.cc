#include <map>
#include <optional>
#include <utility>

#include "linear.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

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
  Expr visit_binary(const Expr& e, const BinaryNode& op) override { return binary(e, mutate(op.a), mutate(op.b)); }
  Expr visit_cast(const Expr&, const CastNode& op) override {
    Expr a = mutate(op.value);
    if (const auto v = const_int(a)) return make_int(wrap(*v, op.dtype), op.dtype);
    return a->dtype == op.dtype ? a : make_cast(op.dtype, a);
  }
  Expr visit_select(const Expr&, const SelectNode& op) override {
    Expr c = mutate(op.cond);
    if (const auto v = const_int(c)) return mutate(*v != 0 ? op.a : op.b);
    return make_select(c, mutate(op.a), mutate(op.b));
  }
  Stmt visit_for(const Stmt&, const ForNode& op) override {
    if (op.extent == 1) return mutate(substitute(op.body, {{op.var.get(), make_int(0)}}));
    ranges_[op.var.get()] = Bounds{0, op.extent - 1};
    Stmt body = mutate(op.body);
    ranges_.erase(op.var.get());
    return make_for(op.var, op.extent, body);
  }

  Expr binary(const Expr& e, Expr a, Expr b);
  Expr canonical_sum(const Expr& e) const;
  std::optional<Bounds> bounds(const Expr& e) const;

  std::map<const ExprNode*, Bounds> ranges_;  ///< loop variables in scope: [0, extent - 1]
};

std::optional<Bounds> Simplifier::bounds(const Expr& e) const {
  if (const auto v = const_int(e)) return Bounds{*v, *v};
  if (e->kind == ExprKind::kVar) {
    auto it = ranges_.find(e.get());
    if (it == ranges_.end()) return std::nullopt;
    return it->second;
  }
  const auto* bin = e->as<BinaryNode>();
  switch (e->kind) {
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMin:
    case ExprKind::kMax: {
      const auto a = bounds(bin->a), b = bounds(bin->b);
      if (!a || !b) return std::nullopt;
      if (e->kind == ExprKind::kAdd) return Bounds{a->lo + b->lo, a->hi + b->hi};
      if (e->kind == ExprKind::kSub) return Bounds{a->lo - b->hi, a->hi - b->lo};
      if (e->kind == ExprKind::kMin) return Bounds{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
      return Bounds{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    case ExprKind::kMul: {
      const bool right = const_int(bin->b).has_value();
      const std::optional<int64_t> k = const_int(right ? bin->b : bin->a);
      if (!k) return std::nullopt;
      const auto a = bounds(right ? bin->a : bin->b);
      if (!a) return std::nullopt;
      const int64_t p = a->lo * *k, q = a->hi * *k;
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
  const std::optional<int64_t> ka = const_int(a), kb = const_int(b);
  if (ka && kb && e->kind != ExprKind::kShr && e->kind != ExprKind::kShl && e->kind != ExprKind::kFloorDiv &&
      e->kind != ExprKind::kFloorMod) {
    return make_int(wrap(eval_binary(e, *ka, *kb), t), t);
  }
  switch (e->kind) {
    case ExprKind::kAdd:
    case ExprKind::kSub:
      if (t == DType::kInt32) return canonical_sum(make_binary(e->kind, a, b));
      if (is_const(b, 0)) return a;
      if (e->kind == ExprKind::kAdd && is_const(a, 0)) return b;
      break;
    case ExprKind::kMul:
      if (is_const(a, 1)) return b;
      if (is_const(b, 1)) return a;
      if (is_const(a, 0) || is_const(b, 0)) return make_int(0, t);
      // (x * c1) * c2 -> x * (c1 * c2)
      if (const auto* inner = a->as<BinaryNode>(); kb && inner != nullptr && inner->kind == ExprKind::kMul) {
        if (const auto c = const_int(inner->b))
          return make_binary(ExprKind::kMul, inner->a, make_int(wrap(*c * *kb, t), t));
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
      if (is_const(a, 1)) return b;
      if (is_const(b, 1)) return a;
      break;
    default: break;
  }
  return make_binary(e->kind, a, b);
}

}  // namespace

Expr simplify(const Expr& e) { return Simplifier().mutate(e); }
Stmt simplify(const Stmt& s) { return Simplifier().mutate(s); }

}  // namespace vta::compiler
