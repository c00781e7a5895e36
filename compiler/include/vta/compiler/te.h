#pragma once
/// \file vta/compiler/te.h
/// The tensor-expression DSL of the tutorials: placeholders, computes defined by a lambda over the
/// output indices, reduction axes and sums.
///
///   Tensor data = placeholder({1, 64, 1, 16}, "data", DType::kInt8);
///   IterVar ic = reduce_axis(64, "ic");
///   Tensor res = compute({1, 64, 1, 16}, {"bo", "co", "bi", "ci"}, [&](const Indices& i) {
///     return sum(cast(DType::kInt32, data(i[0], ic.var, i[2], ...)) * ..., {ic});
///   }, "res_gem");

#include <functional>

#include "vta/compiler/ir.h"

namespace vta::compiler {

using Indices = std::vector<Var>;

Tensor placeholder(std::vector<int64_t> shape, const std::string& name, DType dtype);
/// A compute whose axes are named i0, i1, ... (the tutorials' `lambda *i`).
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(const Indices&)>& body, const std::string& name);
/// A compute with named axes.
Tensor compute(std::vector<int64_t> shape, const std::vector<std::string>& axis_names,
               const std::function<Expr(const Indices&)>& body, const std::string& name);
/// tensor[indices]; checks the number of indices.
Expr read(const Tensor& t, std::vector<Expr> indices);
/// Sum over reduction axes (te.sum); the result has the body's type.
Expr sum(Expr body, const std::vector<IterVar>& axes);
/// Sum over reduction axes starting from `init` instead of 0 (te.sum's `init`): `init` is evaluated at
/// the output element (it may read other tensors, not the reduction axes) and has the body's type. On
/// VTA a tensorized sum whose `init` reads an accumulator tensor at the same element accumulates onto
/// that tensor's buffer (no reset, no copy).
Expr sum(Expr body, const std::vector<IterVar>& axes, Expr init);
/// Zero padding (topi.nn.pad): `before[d]` and `after[d]` elements around each dimension.
Tensor pad(const Tensor& t, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           const std::string& name);

}  // namespace vta::compiler
