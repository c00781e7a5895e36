// In-place ALU stages. VTA's ALU computes acc[dst] = acc[dst] op (acc[src] | imm): it has no separate
// output. A stage like `res_shr = res_gem >> 8` under `pragma alu` therefore writes into the buffer
// of its first operand, which is legal when that operand is read at the same indices and by no other
// stage; the output's own buffer disappears (its readers read the operand's buffer).

#include "sram.h"
#include "vta/compiler/lower.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

/// Every store of the program, and whether it sits under `pragma alu`.
class AluStores final : public IRVisitor {
 public:
  std::vector<std::pair<const StmtNode*, bool>> stores;
  using IRVisitor::visit;

 private:
  void visit_attr(const Stmt& s) override {
    const bool outer = alu_;
    alu_ = alu_ || s->key == attr::kPragmaAlu;
    visit(s->body);
    alu_ = outer;
  }
  void visit_store(const Stmt& s) override { stores.push_back({s.get(), alu_}); }
  bool alu_ = false;
};

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
    AluStores walk;
    walk.visit(cur);
    const auto& stores = walk.stores;
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
        for_each_expr(x->value,
                      [&](const Expr& r) { other = other || (r->kind == ExprKind::kRead && r->tensor == a); });
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
