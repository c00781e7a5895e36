#pragma once
/// \file vta/compiler/printer.h
/// The IR as text (src/printer.cc): what the passes' errors quote and what the tutorials print.

#include <string>

#include "vta/compiler/ir.h"

namespace vta::compiler {

/// Readable text in the style of the seeds' listings (`for (i0: int32, 0, 64) {`).
std::string to_text(const Stmt& s);
std::string to_text(const Expr& e);

}  // namespace vta::compiler
