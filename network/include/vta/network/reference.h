#pragma once
/// \file vta/network/reference.h
/// The plain C++ int8/int32 reference of a Graph: every operator with the integer semantics VTA has
/// (int32 wrapping accumulation, arithmetic shifts, sign-extended int8 residuals), used to run the host
/// operators and to verify every VTA operator's output bit for bit.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "vta/network/graph.h"

namespace vta::network {

/// Tensor values by name; int8 tensors hold values in [-128, 127]. Layout: the TensorDesc's, row-major.
using Values = std::map<std::string, std::vector<int32_t>>;

/// One operator on the values of its inputs; throws GraphError naming the operator when an input is
/// missing or a cast meets a value outside int8.
std::vector<int32_t> reference_op(const Graph& g, const Op& op, const Values& values);

/// `input` as the graph's input values; GraphError naming the input when it is not the input's size
/// (the one check of every function taking a graph's input).
std::vector<int32_t> checked_input(const Graph& g, std::span<const int8_t> input);

/// Runs the whole graph on `input` (NCHW int8); returns every tensor's values. With `keep_all` false
/// only the output (and the input) are kept.
Values run_reference(const Graph& g, std::span<const int8_t> input, bool keep_all = true);

/// NCHW int8 x OIHW int8 convolution with zero padding, int32 accumulation wrapping as VTA's.
std::vector<int32_t> conv2d(std::span<const int32_t> x, std::span<const int8_t> w, int64_t n, int64_t c, int64_t h,
                            int64_t width, int64_t o, int64_t k, int64_t stride, int64_t pad);

}  // namespace vta::network
