// In-place ALU stages. VTA's ALU computes acc[dst] = acc[dst] op (acc[src] | imm): it has no separate
// output. A stage like `res_shr = res_gem >> 8` under `pragma alu` therefore writes into the buffer
// of its first operand, which is legal when that operand is read at the same indices and by no other
// stage; the output's own buffer disappears (its readers read the operand's buffer).

#include <functional>
#include <set>

#include "sram.h"
#include "vta/compiler/lower.h"
#include "vta/compiler/mutator.h"
#include "vta/compiler/pass.h"

namespace vta::compiler {
namespace {

void reads_of(const Expr& e, std::vector<const ExprNode*>& out) {
  if (!e) return;
  if (e->kind == ExprKind::kRead) out.push_back(e.get());
  for (const auto& i : e->indices) reads_of(i, out);
  reads_of(e->cond, out);
  reads_of(e->a, out);
  reads_of(e->b, out);
}

/// Renames tensor `from` to `to` and drops `from`'s allocation.
class Rename final : public IRMutator {
 public:
  Rename(const TensorNode* from, Tensor to) : from_(from), to_(std::move(to)) {}

 protected:
  Expr visit_read(const Expr& e) override {
    if (e->tensor.get() != from_) return IRMutator::visit_read(e);
    return make_read(to_, mutate_all(e->indices));
  }
  Stmt visit_store(const Stmt& s) override {
    if (s->tensor.get() != from_) return IRMutator::visit_store(s);
    return make_store(to_, mutate_all(s->indices), mutate(s->value));
  }
  Stmt visit_allocate(const Stmt& s) override {
    if (s->tensor.get() == from_) return mutate(s->body);
    return IRMutator::visit_allocate(s);
  }

 private:
  const TensorNode* from_;
  Tensor to_;
};

std::string indices_text(const std::vector<Expr>& idx) {
  std::string t;
  for (const auto& i : idx) t += to_text(i) + ",";
  return t;
}

struct Candidate {
  const StmtNode* store = nullptr;
  Tensor operand;
};

}  // namespace

Stmt inplace_alu(const Stmt& s, const Env& env) {
  Stmt cur = s;
  for (;;) {
    const SramPlan plan(cur, env, /*check=*/false);
    // every store in the program, and whether it sits under `pragma alu`
    std::vector<std::pair<const StmtNode*, bool>> stores;
    std::function<void(const Stmt&, bool)> walk = [&](const Stmt& x, bool alu) {
      switch (x->kind) {
        case StmtKind::kAttr: walk(x->body, alu || x->scope == "pragma_alu"); return;
        case StmtKind::kAllocate:
        case StmtKind::kFor: walk(x->body, alu); return;
        case StmtKind::kSeq:
          for (const auto& c : x->seq) walk(c, alu);
          return;
        case StmtKind::kStore: stores.push_back({x.get(), alu}); return;
        default: return;
      }
    };
    walk(cur, false);
    Candidate found;
    for (const auto& [st, alu] : stores) {
      if (!alu || plan.scope_of(st->tensor) != env.acc_scope) continue;
      const Expr& v = st->value;
      if (v->kind == ExprKind::kRead || !v->a || v->a->kind != ExprKind::kRead) continue;
      const Tensor& a = v->a->tensor;
      if (a == st->tensor || plan.scope_of(a) != env.acc_scope) continue;
      if (plan.shape_of(a) != plan.shape_of(st->tensor)) continue;
      if (indices_text(v->a->indices) != indices_text(st->indices)) continue;
      // no other stage reads the operand (its own update reads it, and is its writer)
      bool other = false;
      for (const auto& [x, unused] : stores) {
        if (x == st || x->tensor == a) continue;
        std::vector<const ExprNode*> rs;
        reads_of(x->value, rs);
        for (const ExprNode* r : rs) other = other || r->tensor == a;
      }
      if (other) continue;
      found = {st, a};
      break;
    }
    if (found.store == nullptr) return cur;
    cur = Rename(found.store->tensor.get(), found.operand).mutate(cur);
  }
}

}  // namespace vta::compiler
