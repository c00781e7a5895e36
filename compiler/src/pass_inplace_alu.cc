// In-place ALU stages. VTA's ALU computes acc[dst] = acc[dst] op (acc[src] | imm): it has no separate
// output. A stage like `res_shr = res_gem >> 8` under `pragma alu` therefore writes into the buffer
// of its first operand, which is legal when that operand is read at the same indices and by no other
// stage; the output's own buffer disappears (its readers read the operand's buffer).
// The same holds for the initialisation of a sum that starts from another accumulator tensor
// (`sum(..., init)`, a plain copy `out[i] = prev[i]` under no annotation): the sum accumulates in
// prev's buffer and the copy, become `prev[i] = prev[i]`, is dropped with the loops around it.

#include "sram.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/printer.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

/// How a store is mapped to the accelerator.
enum class Under : uint8_t { kNothing, kAlu, kOther };

/// Every store of the program, and the annotation it sits under.
class AluStores final : public IRVisitor {
 public:
  std::vector<std::pair<const StoreNode*, Under>> stores;
  using IRVisitor::visit;

 private:
  void visit_attr(const Stmt&, const AttrNode& op) override {
    const Under outer = under_;
    if (under_ == Under::kNothing && op.key == attr::kPragmaAlu) under_ = Under::kAlu;
    if (under_ == Under::kNothing && (op.key == attr::kTensorizeGemm || op.key.rfind(attr::kPragmaPrefix, 0) == 0)) {
      under_ = Under::kOther;
    }
    visit(op.body);
    under_ = outer;
  }
  void visit_store(const Stmt&, const StoreNode& op) override { stores.push_back({&op, under_}); }
  Under under_ = Under::kNothing;
};

/// The first operand of an operation (a binary operation's left side, a select's first branch, what a
/// cast converts); null for constants, variables and reads.
Expr first_operand(const Expr& e) {
  if (const auto* b = e->as<BinaryNode>()) return b->a;
  if (const auto* s = e->as<SelectNode>()) return s->a;
  if (const auto* c = e->as<CastNode>()) return c->value;
  if (const auto* r = e->as<ReduceNode>()) return r->body;
  return nullptr;
}

/// `e` as a read of whole elements (not a flat offset); nullptr otherwise.
const ReadNode* element_read(const Expr& e) {
  const auto* r = e ? e->as<ReadNode>() : nullptr;
  return r != nullptr && !r->flat ? r : nullptr;
}

std::string indices_text(const std::vector<Expr>& idx) {
  std::string t;
  for (const auto& i : idx) t += to_text(i) + ",";
  return t;
}

/// Drops the stores `t[i] = t[i]` and the loops and sequences left empty.
class DropSelfCopies final : public PruningMutator {
 protected:
  Stmt visit_store(const Stmt& s, const StoreNode& op) override {
    const ReadNode* v = element_read(op.value);
    if (v != nullptr && v->tensor == op.tensor && !op.flat && indices_text(v->indices) == indices_text(op.indices)) {
      return make_seq({});
    }
    return IRMutator::visit_store(s, op);
  }
};

/// Renames tensor `from` to `to` and drops `from`'s allocation.
class Rename final : public RenameTensors {
 public:
  Rename(const TensorNode* from, Tensor to) : RenameTensors({{from, std::move(to)}}) {}

 protected:
  Stmt visit_allocate(const Stmt& s, const AllocateNode& op) override {
    return renamed(op.tensor) ? mutate(op.body) : IRMutator::visit_allocate(s, op);
  }
};

struct Candidate {
  const StoreNode* store = nullptr;
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
    // the operand a store can compute in place of (null: none): under `pragma alu`, an operation on its
    // first operand; under nothing, a sum's initial copy; an accumulator of the same extents read at the
    // same element
    auto operand_of = [&](const StoreNode* st, Under under) -> const ReadNode* {
      if (under == Under::kOther || plan.scope_of(st->tensor) != env.acc_scope) return nullptr;
      const Expr& v = st->value;
      const bool init_copy = under == Under::kNothing && element_read(v) != nullptr;
      if (under == Under::kNothing && !init_copy) return nullptr;
      const Expr first = first_operand(v);
      if (under == Under::kAlu && (!first || first->kind != ExprKind::kRead)) return nullptr;
      const auto* operand = element_read(init_copy ? v : first);
      if (operand == nullptr) return nullptr;
      const Tensor& a = operand->tensor;
      if (a == st->tensor || plan.scope_of(a) != env.acc_scope) return nullptr;
      if (plan.shape_of(a) != plan.shape_of(st->tensor)) return nullptr;
      if (indices_text(operand->indices) != indices_text(st->indices)) return nullptr;
      return operand;
    };
    for (const auto& [st, under] : stores) {
      const ReadNode* operand = operand_of(st, under);
      if (operand == nullptr) continue;
      const Tensor& a = operand->tensor;
      // no other store reads the operand, but the stage's other parts (a split's shorter last
      // iteration) computing in its place too, and the operand's own updates
      bool other = false;
      for (const auto& [x, x_under] : stores) {
        if (x->tensor == a) continue;
        if (x->tensor == st->tensor) {
          const ReadNode* o = operand_of(x, x_under);
          if (o != nullptr && o->tensor == a) continue;  // (another part of the same stage)
        }
        for_each_expr(x->value, [&](const Expr& r) {
          const auto* read = r->as<ReadNode>();
          other = other || (read != nullptr && read->tensor == a);
        });
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
