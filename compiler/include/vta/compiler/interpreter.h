#pragma once
/// \file vta/compiler/interpreter.h
/// The reference interpreter (src/interpreter.cc): a lowered program run on host buffers, the
/// independent check of every pass after lowering.

#include <cstdint>
#include <map>
#include <vector>

#include "vta/compiler/ir.h"

namespace vta::compiler {

/// Host storage of a tensor: one int64 per element, row-major.
using Buffers = std::map<const TensorNode*, std::vector<int64_t>*>;
/// Executes `s`, reading and writing `args` (all tensors in `args` must be given); intermediates are
/// allocated by their Allocate nodes. Stores wrap values to the tensor's type.
void run(const Stmt& s, const Buffers& args);

}  // namespace vta::compiler
