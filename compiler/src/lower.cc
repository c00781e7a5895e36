// The pass list: a schedule lowered to the program build() runs (lower.h).

#include "vta/compiler/lower.h"

#include "schedule_ops.h"
#include "vta/compiler/pass.h"

namespace vta::compiler {

Stmt lower(const Schedule& s, const std::vector<Tensor>& args, const Env* env) {
  LowerOptions o;
  o.env = env;
  return lower(s, args, o);
}

Stmt lower(const Schedule& s, const std::vector<Tensor>& args, const LowerOptions& options) {
  const Env* env = options.env;
  auto log = [&](const char* pass, const Stmt& ir) {
    if (options.log != nullptr) *options.log << "// after " << pass << "\n" << to_text(ir);
  };
  ScheduledNests nests = schedule_ops(s, args, env);
  Stmt body = nests.body;
  log("schedule_ops", body);
  body = rebase_regions(body, nests.regions);
  log("rebase_regions", body);
  if (env != nullptr) {
    body = remove_mocked(body);
    log("remove_mocked", body);
  }
  body = simplify(body);
  log("simplify", body);
  if (env != nullptr && options.vta) {
    body = replicate_thread_buffers(body);
    log("replicate_thread_buffers", body);
    body = inplace_alu(body, *env);
    log("inplace_alu", body);
  }
  if (env != nullptr) {
    body = simplify(inject_dma(body, *env));
    log("inject_dma", body);
  }
  if (env != nullptr && options.vta) {
    body = tensorize_gemm(body, *env);
    log("tensorize_gemm", body);
    body = inject_alu(body, *env);
    log("inject_alu", body);
    body = coproc_sync(body, options.overlap_tiles);
    log("coproc_sync", body);
    body = inject_virtual_threads(body);
    log("inject_virtual_threads", body);
    body = simplify(body);
    log("simplify", body);
  }
  if (options.flatten) {
    body = flatten(body);
    log("flatten", body);
  }
  return body;
}

}  // namespace vta::compiler
