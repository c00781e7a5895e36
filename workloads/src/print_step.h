#pragma once
// How the compiled tutorials show their schedule steps (--print, tests/golden/*.txt): a title line,
// then the lowered program, when the caller asked for them.

#include <ostream>

#include "vta/compiler/printer.h"

namespace vta::tutorials {

inline void print_step(std::ostream* steps, const char* title, const compiler::Stmt& program) {
  if (steps != nullptr) *steps << "// ---- " << title << "\n" << compiler::to_text(program) << "\n";
}

}  // namespace vta::tutorials
