// The mock forms of VTA's units (TVM's `env.mock`): nests under `pragma skip_dma_copy`, `pragma
// skip_alu` or `tensorize skip_gemm` removed, with the loops and sequences they leave empty and the
// buffers no stage uses any more.

#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

/// Whether `s` reads or writes `t` (stores, reads, DMA calls).
bool uses(const Stmt& s, const Tensor& t) {
  bool used = false;
  for_each_stmt(s, [&](const Stmt& x) {
    if (const auto* st = x->as<StoreNode>()) used = used || st->tensor == t;
    if (const auto* c = x->as<CallNode>()) used = used || c->dst == t || c->src == t;
  });
  for_each_expr(s, [&](const Expr& e) {
    if (const auto* r = e->as<ReadNode>()) used = used || r->tensor == t;
  });
  return used;
}

class RemoveMocked final : public PruningMutator {
 protected:
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override {
    if (op.key == attr::kPragmaSkipDmaCopy || op.key == attr::kPragmaSkipAlu || op.key == attr::kTensorizeSkipGemm) {
      return make_seq({});
    }
    return PruningMutator::visit_attr(s, op);
  }
  // (a buffer only mocked stages used is not allocated: the program keeps the SRAM of the real ones)
  Stmt visit_allocate(const Stmt&, const AllocateNode& op) override {
    Stmt body = mutate(op.body);
    return uses(body, op.tensor) ? make_allocate(op.tensor, op.scope, body, op.shape) : body;
  }
};

}  // namespace

Stmt remove_mocked(const Stmt& s) { return RemoveMocked().mutate(s); }

}  // namespace vta::compiler
