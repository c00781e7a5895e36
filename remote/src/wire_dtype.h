#pragma once
// Element types on the wire (ModuleArg::dtype, docs/REMOTE.md): 0 int8, 1 int32, 2 int4. The one
// mapping from the runtime's types, for the session (client side) and the module service (server side).

#include <cstdint>

#include "vta/runtime/tensor.h"

namespace vta::rpc {

inline uint8_t wire_dtype(runtime::DType t) {
  switch (t) {
    case runtime::DType::kInt8: return 0;
    case runtime::DType::kInt32: return 1;
    case runtime::DType::kInt4: return 2;
  }
  return 0;
}

/// The runtime's name of wire type `code` (a validated one: protocol.cc refuses the others).
inline const char* wire_dtype_name(uint8_t code) {
  for (const runtime::DType t : {runtime::DType::kInt8, runtime::DType::kInt32, runtime::DType::kInt4}) {
    if (wire_dtype(t) == code) return runtime::dtype_name(t);
  }
  return "?";
}

}  // namespace vta::rpc
