#include "vta/compiler/visitor.h"

namespace vta::compiler {

// ---- IRVisitor --------------------------------------------------------------------------------------

void IRVisitor::visit_all(const std::vector<Expr>& v) {
  for (const auto& e : v) visit(e);
}
void IRVisitor::visit_binary(const Expr& e) { visit(e->a), visit(e->b); }
void IRVisitor::visit_select(const Expr& e) { visit(e->cond), visit(e->a), visit(e->b); }
void IRVisitor::visit_cast(const Expr& e) { visit(e->a); }
void IRVisitor::visit_read(const Expr& e) { visit_all(e->indices); }
void IRVisitor::visit_reduce(const Expr& e) {
  visit(e->a);
  if (e->b) visit(e->b);
}
void IRVisitor::visit_for(const Stmt& s) { visit(s->body); }
void IRVisitor::visit_store(const Stmt& s) { visit_all(s->indices), visit(s->value); }
void IRVisitor::visit_seq(const Stmt& s) {
  for (const auto& x : s->seq) visit(x);
}
void IRVisitor::visit_allocate(const Stmt& s) { visit(s->body); }
void IRVisitor::visit_attr(const Stmt& s) { visit(s->value), visit(s->body); }
void IRVisitor::visit_call(const Stmt& s) { visit_all(s->args); }

// ---- IRMutator --------------------------------------------------------------------------------------

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& v) {
  std::vector<Expr> out;
  out.reserve(v.size());
  for (const auto& e : v) out.push_back(mutate(e));
  return out;
}

Expr IRMutator::visit_binary(const Expr& e) { return make_binary(e->kind, mutate(e->a), mutate(e->b)); }
Expr IRMutator::visit_select(const Expr& e) { return make_select(mutate(e->cond), mutate(e->a), mutate(e->b)); }
Expr IRMutator::visit_cast(const Expr& e) { return make_cast(e->dtype, mutate(e->a)); }
Expr IRMutator::visit_read(const Expr& e) {
  return e->flat ? make_flat_read(e->tensor, mutate(e->indices[0])) : make_read(e->tensor, mutate_all(e->indices));
}
Expr IRMutator::visit_reduce(const Expr& e) {
  std::vector<IterVar> axes;
  for (size_t i = 0; i < e->reduce_axes.size(); ++i) axes.push_back({e->reduce_axes[i], e->reduce_extents[i], true});
  return make_reduce(mutate(e->a), axes, e->b ? mutate(e->b) : nullptr);
}

Stmt IRMutator::visit_for(const Stmt& s) { return make_for(s->var, s->extent, mutate(s->body)); }
Stmt IRMutator::visit_store(const Stmt& s) {
  return s->flat ? make_flat_store(s->tensor, mutate(s->indices[0]), mutate(s->value))
                 : make_store(s->tensor, mutate_all(s->indices), mutate(s->value));
}
Stmt IRMutator::visit_seq(const Stmt& s) {
  std::vector<Stmt> v;
  v.reserve(s->seq.size());
  for (const auto& x : s->seq) v.push_back(mutate(x));
  return make_seq(std::move(v));
}
Stmt IRMutator::visit_allocate(const Stmt& s) { return make_allocate(s->tensor, s->scope, mutate(s->body), s->shape); }
Stmt IRMutator::visit_attr(const Stmt& s) { return make_attr(s->var, s->key, mutate(s->body), mutate(s->value)); }
Stmt IRMutator::visit_call(const Stmt& s) { return make_call(s->name, s->tensor, s->src, mutate_all(s->args)); }

// ---- helpers ----------------------------------------------------------------------------------------
namespace {

class ExprWalker final : public IRVisitor {
 public:
  explicit ExprWalker(const std::function<void(const Expr&)>& f) : f_(f) {}
  using IRVisitor::visit;

 protected:
  void visit_int(const Expr& e) override { f_(e); }
  void visit_var(const Expr& e) override { f_(e); }
  void visit_binary(const Expr& e) override { f_(e), IRVisitor::visit_binary(e); }
  void visit_select(const Expr& e) override { f_(e), IRVisitor::visit_select(e); }
  void visit_cast(const Expr& e) override { f_(e), IRVisitor::visit_cast(e); }
  void visit_read(const Expr& e) override { f_(e), IRVisitor::visit_read(e); }
  void visit_reduce(const Expr& e) override { f_(e), IRVisitor::visit_reduce(e); }

 private:
  const std::function<void(const Expr&)>& f_;
};

class StmtWalker final : public IRVisitor {
 public:
  explicit StmtWalker(const std::function<void(const Stmt&)>& f) : f_(f) {}
  using IRVisitor::visit;

 protected:
  // statements only: expressions are not entered
  void visit_binary(const Expr&) override {}
  void visit_select(const Expr&) override {}
  void visit_cast(const Expr&) override {}
  void visit_read(const Expr&) override {}
  void visit_reduce(const Expr&) override {}
  void visit_for(const Stmt& s) override { f_(s), IRVisitor::visit_for(s); }
  void visit_store(const Stmt& s) override { f_(s), IRVisitor::visit_store(s); }
  void visit_seq(const Stmt& s) override { f_(s), IRVisitor::visit_seq(s); }
  void visit_allocate(const Stmt& s) override { f_(s), IRVisitor::visit_allocate(s); }
  void visit_attr(const Stmt& s) override { f_(s), IRVisitor::visit_attr(s); }
  void visit_call(const Stmt& s) override { f_(s), IRVisitor::visit_call(s); }

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
