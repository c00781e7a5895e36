#include "linear.h"

#include "vta/compiler/printer.h"

namespace vta::compiler {

int64_t Linear::coef(const ExprNode* term) const {
  for (const auto& [t, k] : terms) {
    if (t.get() == term) return k;
  }
  return 0;
}

Linear Linear::operator+(const Linear& o) const {
  Linear r = *this;
  r.c += o.c;
  for (const auto& [t, k] : o.terms) {
    auto it = r.terms.begin();
    while (it != r.terms.end() && it->first.get() != t.get()) ++it;
    if (it == r.terms.end()) {
      r.terms.push_back({t, k});
    } else if ((it->second += k) == 0) {
      r.terms.erase(it);
    }
  }
  return r;
}

Linear Linear::scaled(int64_t k) const {
  Linear r;
  r.c = c * k;
  if (k == 0) return r;
  for (const auto& [t, x] : terms) r.terms.push_back({t, x * k});
  return r;
}

Linear Linear::of(int64_t k) {
  Linear r;
  r.c = k;
  return r;
}

Linear Linear::of(const Expr& term) {
  Linear r;
  r.terms.push_back({term, 1});
  return r;
}

Expr Linear::to_expr() const {
  Expr e;
  for (const auto& [t, k] : terms) {
    Expr term = k == 1 ? t : t * k;
    e = e ? e + term : term;
  }
  if (!e) return make_int(c);
  return c == 0 ? e : e + c;
}

Interval interval(const Expr& e, const Ranges& r, const std::string& stage, bool atoms) {
  if (const auto v = const_int(e)) return {Linear::of(*v), Linear::of(*v)};
  if (e->kind == ExprKind::kVar) {
    auto it = r.find(e.get());
    if (it != r.end()) return it->second;
    return {Linear::of(e), Linear::of(e)};
  }
  const auto* bin = e->as<BinaryNode>();
  switch (e->kind) {
    case ExprKind::kAdd: {
      const Interval a = interval(bin->a, r, stage, atoms), b = interval(bin->b, r, stage, atoms);
      return {a.lo + b.lo, a.hi + b.hi};
    }
    case ExprKind::kSub: {
      const Interval a = interval(bin->a, r, stage, atoms), b = interval(bin->b, r, stage, atoms);
      return {a.lo - b.hi, a.hi - b.lo};
    }
    case ExprKind::kMul: {
      const bool right = const_int(bin->b).has_value();
      const std::optional<int64_t> k = const_int(right ? bin->b : bin->a);
      if (!k) break;
      const Interval a = interval(right ? bin->a : bin->b, r, stage, atoms);
      return *k >= 0 ? Interval{a.lo.scaled(*k), a.hi.scaled(*k)} : Interval{a.hi.scaled(*k), a.lo.scaled(*k)};
    }
    default: break;
  }
  if (atoms) return {Linear::of(e), Linear::of(e)};
  throw ScheduleError("compute_at: stage " + stage + " reads with an index that is not affine in the loops: " +
                      to_text(e) + " (bound inference handles sums and constant multiples)");
}

}  // namespace vta::compiler
