#include "uop.h"

#include <algorithm>

#include "linear.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/printer.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {

const Var& vta_var() {
  static const Var v = make_var("vta");
  return v;
}

Stmt make_uop_kernel(const std::vector<Loop>& loops, const std::vector<Expr>& push, bool alu, const Env& env,
                     const std::string& where) {
  const size_t folded = std::min<size_t>(2, loops.size());
  std::vector<Expr> args = push;
  std::vector<Stmt> begin;
  for (size_t l = 0; l < folded; ++l) {
    const Var& v = loops[l].var;
    std::vector<Expr> factors{make_int(loops[l].extent)};
    for (size_t a : {kUopDst, kUopSrc, kUopWgt}) {
      const Linear form = to_linear(args[a]);
      int64_t k = 0;
      for (const auto& [t, c] : form.terms) {
        if (t.get() == v.get()) {
          k = c;
        } else if (uses_any(t, {v.get()})) {
          throw ScheduleError(where + ": the micro-op index " + to_text(args[a]) + " is not affine in loop " + v->name);
        }
      }
      if (k < 0)
        throw ScheduleError(where + ": loop " + v->name + " walks an index backwards (" + to_text(args[a]) + ")");
      factors.push_back(make_int(k));
      args[a] = simplify(substitute(args[a], {{v.get(), make_int(0)}}));
    }
    for (size_t a = 0; a < args.size(); ++a) {
      if (a != kUopDst && a != kUopSrc && a != kUopWgt && uses_any(args[a], {v.get()})) {
        throw ScheduleError(where + ": loop " + v->name + " changes the micro-op's operation");
      }
    }
    begin.push_back(make_call(intrin::kUopLoopBegin, nullptr, nullptr, factors));
  }
  int64_t uops = 1;
  Stmt body = make_call(intrin::kUopPush, nullptr, nullptr, args);
  for (size_t l = loops.size(); l-- > folded;) {
    uops *= loops[l].extent;
    body = make_for(loops[l].var, loops[l].extent, body);
  }
  if (uops > int64_t(env.config.uop_depth())) {
    throw ScheduleError(where + ": the kernel needs " + std::to_string(uops) +
                        " micro-ops; the micro-op buffer holds " + std::to_string(env.config.uop_depth()) +
                        " (move loops out of the tensorized/ALU region)");
  }
  std::vector<Stmt> seq = begin;
  seq.push_back(body);
  for (size_t l = 0; l < folded; ++l) seq.push_back(make_call(intrin::kUopLoopEnd, nullptr, nullptr, {}));
  return make_attr(vta_var(), attr::kCoprocUopScope, make_seq(std::move(seq)),
                   make_int(alu ? attr::kUopKernelAlu : attr::kUopKernelGemm));
}

}  // namespace vta::compiler
