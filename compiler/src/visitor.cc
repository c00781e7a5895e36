#include "vta/compiler/visitor.h"

namespace vta::compiler {

// ---- IRVisitor --------------------------------------------------------------------------------------

void IRVisitor::visit_all(const std::vector<Expr>& v) {
  for (const auto& e : v) visit(e);
}
void IRVisitor::visit_binary(const Expr&, const BinaryNode& op) { visit(op.a), visit(op.b); }
void IRVisitor::visit_select(const Expr&, const SelectNode& op) { visit(op.cond), visit(op.a), visit(op.b); }
void IRVisitor::visit_cast(const Expr&, const CastNode& op) { visit(op.value); }
void IRVisitor::visit_read(const Expr&, const ReadNode& op) { visit_all(op.indices); }
void IRVisitor::visit_reduce(const Expr&, const ReduceNode& op) {
  visit(op.body);
  if (op.init) visit(op.init);
}
void IRVisitor::visit_for(const Stmt&, const ForNode& op) { visit(op.body); }
void IRVisitor::visit_store(const Stmt&, const StoreNode& op) { visit_all(op.indices), visit(op.value); }
void IRVisitor::visit_seq(const Stmt&, const SeqNode& op) {
  for (const auto& x : op.seq) visit(x);
}
void IRVisitor::visit_allocate(const Stmt&, const AllocateNode& op) { visit(op.body); }
void IRVisitor::visit_attr(const Stmt&, const AttrNode& op) { visit(op.value), visit(op.body); }
void IRVisitor::visit_call(const Stmt&, const CallNode& op) { visit_all(op.args); }

// ---- IRMutator --------------------------------------------------------------------------------------

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& v) {
  std::vector<Expr> out;
  out.reserve(v.size());
  for (const auto& e : v) out.push_back(mutate(e));
  return out;
}

Expr IRMutator::visit_binary(const Expr&, const BinaryNode& op) {
  return make_binary(op.kind, mutate(op.a), mutate(op.b));
}
Expr IRMutator::visit_select(const Expr&, const SelectNode& op) {
  return make_select(mutate(op.cond), mutate(op.a), mutate(op.b));
}
Expr IRMutator::visit_cast(const Expr&, const CastNode& op) { return make_cast(op.dtype, mutate(op.value)); }
Expr IRMutator::visit_read(const Expr&, const ReadNode& op) {
  return op.flat ? make_flat_read(op.tensor, mutate(op.indices[0])) : make_read(op.tensor, mutate_all(op.indices));
}
Expr IRMutator::visit_reduce(const Expr&, const ReduceNode& op) {
  std::vector<IterVar> axes;
  for (size_t i = 0; i < op.axes.size(); ++i) axes.push_back({op.axes[i], op.extents[i], true});
  return make_reduce(mutate(op.body), axes, op.init ? mutate(op.init) : nullptr);
}

Stmt IRMutator::visit_for(const Stmt&, const ForNode& op) { return make_for(op.var, op.extent, mutate(op.body)); }
Stmt IRMutator::visit_store(const Stmt&, const StoreNode& op) {
  return op.flat ? make_flat_store(op.tensor, mutate(op.indices[0]), mutate(op.value))
                 : make_store(op.tensor, mutate_all(op.indices), mutate(op.value));
}
Stmt IRMutator::visit_seq(const Stmt&, const SeqNode& op) {
  std::vector<Stmt> v;
  v.reserve(op.seq.size());
  for (const auto& x : op.seq) v.push_back(mutate(x));
  return make_seq(std::move(v));
}
Stmt IRMutator::visit_allocate(const Stmt&, const AllocateNode& op) {
  return make_allocate(op.tensor, op.scope, mutate(op.body), op.shape);
}
Stmt IRMutator::visit_attr(const Stmt&, const AttrNode& op) {
  return make_attr(op.var, op.key, mutate(op.body), mutate(op.value));
}
Stmt IRMutator::visit_call(const Stmt&, const CallNode& op) {
  return make_call(op.name, op.dst, op.src, mutate_all(op.args));
}

// ---- PruningMutator ---------------------------------------------------------------------------------

bool PruningMutator::empty(const Stmt& s) {
  const auto* seq = s->as<SeqNode>();
  return seq != nullptr && seq->seq.empty();
}
Stmt PruningMutator::visit_for(const Stmt&, const ForNode& op) {
  Stmt body = mutate(op.body);
  return empty(body) ? body : make_for(op.var, op.extent, body);
}
Stmt PruningMutator::visit_seq(const Stmt&, const SeqNode& op) {
  std::vector<Stmt> v;
  for (const auto& x : op.seq) {
    Stmt m = mutate(x);
    if (!empty(m)) v.push_back(std::move(m));
  }
  return make_seq(std::move(v));
}
Stmt PruningMutator::visit_attr(const Stmt&, const AttrNode& op) {
  Stmt body = mutate(op.body);
  return empty(body) ? body : make_attr(op.var, op.key, body, mutate(op.value));
}

// ---- RenameTensors ----------------------------------------------------------------------------------

Expr RenameTensors::visit_read(const Expr& e, const ReadNode& op) {
  auto it = to_.find(op.tensor.get());
  return it == to_.end() ? IRMutator::visit_read(e, op) : make_read(it->second, mutate_all(op.indices));
}
Stmt RenameTensors::visit_store(const Stmt& s, const StoreNode& op) {
  auto it = to_.find(op.tensor.get());
  return it == to_.end() ? IRMutator::visit_store(s, op)
                         : make_store(it->second, mutate_all(op.indices), mutate(op.value));
}

// ---- helpers ----------------------------------------------------------------------------------------
namespace {

class ExprWalker final : public IRVisitor {
 public:
  explicit ExprWalker(const std::function<void(const Expr&)>& f) : f_(f) {}
  using IRVisitor::visit;

 protected:
  void visit_int(const Expr& e, const IntNode&) override { f_(e); }
  void visit_var(const Expr& e, const VarNode&) override { f_(e); }
  void visit_binary(const Expr& e, const BinaryNode& op) override { f_(e), IRVisitor::visit_binary(e, op); }
  void visit_select(const Expr& e, const SelectNode& op) override { f_(e), IRVisitor::visit_select(e, op); }
  void visit_cast(const Expr& e, const CastNode& op) override { f_(e), IRVisitor::visit_cast(e, op); }
  void visit_read(const Expr& e, const ReadNode& op) override { f_(e), IRVisitor::visit_read(e, op); }
  void visit_reduce(const Expr& e, const ReduceNode& op) override { f_(e), IRVisitor::visit_reduce(e, op); }

 private:
  const std::function<void(const Expr&)>& f_;
};

class StmtWalker final : public IRVisitor {
 public:
  explicit StmtWalker(const std::function<void(const Stmt&)>& f) : f_(f) {}
  using IRVisitor::visit;

 protected:
  // statements only: expressions are not entered
  void visit_binary(const Expr&, const BinaryNode&) override {}
  void visit_select(const Expr&, const SelectNode&) override {}
  void visit_cast(const Expr&, const CastNode&) override {}
  void visit_read(const Expr&, const ReadNode&) override {}
  void visit_reduce(const Expr&, const ReduceNode&) override {}
  void visit_for(const Stmt& s, const ForNode& op) override { f_(s), IRVisitor::visit_for(s, op); }
  void visit_store(const Stmt& s, const StoreNode& op) override { f_(s), IRVisitor::visit_store(s, op); }
  void visit_seq(const Stmt& s, const SeqNode& op) override { f_(s), IRVisitor::visit_seq(s, op); }
  void visit_allocate(const Stmt& s, const AllocateNode& op) override { f_(s), IRVisitor::visit_allocate(s, op); }
  void visit_attr(const Stmt& s, const AttrNode& op) override { f_(s), IRVisitor::visit_attr(s, op); }
  void visit_call(const Stmt& s, const CallNode& op) override { f_(s), IRVisitor::visit_call(s, op); }

 private:
  const std::function<void(const Stmt&)>& f_;
};

}  // namespace

void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f) { ExprWalker(f).visit(e); }
void for_each_expr(const Stmt& s, const std::function<void(const Expr&)>& f) { ExprWalker(f).visit(s); }
void for_each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f) { StmtWalker(f).visit(s); }

bool uses_any(const Expr& e, const std::set<const ExprNode*>& nodes) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) { found = found || nodes.count(x.get()) != 0; });
  return found;
}

}  // namespace vta::compiler
