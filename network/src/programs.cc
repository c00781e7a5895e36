// How the executor's programs are built.

#include "programs.h"

namespace vta::network {
namespace c = vta::compiler;

c::BuildOptions build_options() {
  c::BuildOptions o;
  o.overlap_tiles = true;
  return o;
}

c::Module build_program(const Program& program, const c::Env& env) {
  return c::build(program.schedule, program.args, env, build_options());
}

}  // namespace vta::network
