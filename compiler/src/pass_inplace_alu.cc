// In-place ALU stages. VTA's ALU computes acc[dst] = acc[dst] op (acc[src] | imm): it has no separate
// output. A stage like `res_shr = res_gem >> 8` under `pragma alu` therefore writes into the buffer
// of its first operand, which is legal when that operand is read at the same indices and by no other
// stage; the output's own buffer disappears (its readers read the operand's buffer).
// The same holds for the initialisation of a sum that starts from another accumulator tensor
// (`sum(..., init)`, a plain copy `out[i] = prev[i]` under no annotation): the sum accumulates in
// prev's buffer and the copy, become `prev[i] = prev[i]`, is dropped with the loops around it.

#include "sram.h"
#include "vta/compiler/lower.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

/// How a store is mapped to the accelerator.
enum class Under : uint8_t { kNothing, kAlu, kOther };

/// Every store of the program, and the annotation it sits under.
class AluStores final : public IRVisitor {
 public:
  std::vector<std::pair<const StmtNode*, Under>> stores;
  using IRVisitor::visit;

 private:
  void visit_attr(const Stmt& s) override {
    const Under outer = under_;
    if (under_ == Under::kNothing && s->key == attr::kPragmaAlu) under_ = Under::kAlu;
    if (under_ == Under::kNothing && (s->key == attr::kTensorizeGemm || s->key.rfind(attr::kPragmaPrefix, 0) == 0)) {
      under_ = Under::kOther;
    }
    visit(s->body);
    under_ = outer;
  }
  void visit_store(const Stmt& s) override { stores.push_back({s.get(), under_}); }
  Under under_ = Under::kNothing;
};

std::string indices_text(const std::vector<Expr>& idx) {
  std::string t;
  for (const auto& i : idx) t += to_text(i) + ",";
  return t;
}

/// Drops the stores `t[i] = t[i]` and the loops and sequences left empty.
class DropSelfCopies final : public IRMutator {
 protected:
  Stmt visit_store(const Stmt& s) override {
    const Expr& v = s->value;
    if (v->kind == ExprKind::kRead && v->tensor == s->tensor && !v->flat && !s->flat &&
        indices_text(v->indices) == indices_text(s->indices)) {
      return make_seq({});
    }
    return IRMutator::visit_store(s);
  }
  Stmt visit_for(const Stmt& s) override {
    Stmt body = mutate(s->body);
    return empty(body) ? body : make_for(s->var, s->extent, body);
  }
  Stmt visit_seq(const Stmt& s) override {
    std::vector<Stmt> v;
    for (const auto& x : s->seq) {
      Stmt m = mutate(x);
      if (!empty(m)) v.push_back(std::move(m));
    }
    return make_seq(std::move(v));
  }

 private:
  static bool empty(const Stmt& s) { return s->kind == StmtKind::kSeq && s->seq.empty(); }
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

struct Candidate {
  const StmtNode* store = nullptr;
  Tensor operand;
};

}  // namespace

Stmt inplace_alu(const Stmt& s, const Env& env) {
  Stmt cur = s;
  bool init_copies = false;
  for (;;) {
    const SramPlan plan(cur, env, /*check=*/false);
    AluStores walk;
    walk.visit(cur);
    const auto& stores = walk.stores;
    Candidate found;
    for (const auto& [st, under] : stores) {
      if (under == Under::kOther || plan.scope_of(st->tensor) != env.acc_scope) continue;
      const Expr& v = st->value;
      // under `pragma alu`: an operation on its first operand; under nothing: a sum's initial copy
      const bool init_copy = under == Under::kNothing && v->kind == ExprKind::kRead && !v->flat;
      if (under == Under::kNothing && !init_copy) continue;
      if (under == Under::kAlu && (v->kind == ExprKind::kRead || !v->a || v->a->kind != ExprKind::kRead)) continue;
      const Expr& operand = init_copy ? v : v->a;
      const Tensor& a = operand->tensor;
      if (a == st->tensor || plan.scope_of(a) != env.acc_scope) continue;
      if (plan.shape_of(a) != plan.shape_of(st->tensor)) continue;
      if (indices_text(operand->indices) != indices_text(st->indices)) continue;
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
    if (found.store == nullptr) return init_copies ? DropSelfCopies().mutate(cur) : cur;
    init_copies = init_copies || found.store->value->kind == ExprKind::kRead;
    cur = Rename(found.store->tensor.get(), found.operand).mutate(cur);
  }
}

}  // namespace vta::compiler
