#pragma once
// Affine forms of index expressions (internal to the compiler's passes): sum(coef * term) + c, where a
// term is a variable or, where asked, an opaque non-affine subexpression. Terms compare by node and
// keep the order they first appear in, so expressions rebuilt from a form print the same every run.
// interval() bounds an index whose variables range over intervals (bound inference); to_linear() is
// the form of an index with nothing ranging.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vta/compiler/ir.h"

namespace vta::compiler {

struct Linear {
  std::vector<std::pair<Expr, int64_t>> terms;  ///< non-zero coefficients, in order of appearance
  int64_t c = 0;

  bool constant() const { return terms.empty(); }
  int64_t coef(const ExprNode* term) const;
  Linear operator+(const Linear& o) const;
  Linear operator-(const Linear& o) const { return *this + o.scaled(-1); }
  Linear scaled(int64_t k) const;
  static Linear of(int64_t k);
  static Linear of(const Expr& term);
  Expr to_expr() const;
};

struct Interval {
  Linear lo, hi;
};
/// Intervals of the variables that range (others are fixed symbols: [v, v]).
using Ranges = std::map<const ExprNode*, Interval>;

/// Bounds of `e` given `ranges`: sums and constant multiples only; anything else is a ScheduleError
/// naming `stage` (bound inference), unless `atoms`: then it becomes one opaque term.
Interval interval(const Expr& e, const Ranges& ranges, const std::string& stage, bool atoms = false);

/// The affine form of `e`, non-affine subexpressions kept whole as terms.
inline Linear to_linear(const Expr& e) { return interval(e, {}, "", true).lo; }

}  // namespace vta::compiler
