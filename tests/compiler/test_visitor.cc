// The traversal layer (visitor.h): the visitor reaches every child of every node kind, the default
// mutator rebuilds a tree that prints the same, a mutator overriding one kind reaches it everywhere,
// and the kind lists name every kind once. Checked against a plain recursive walk written here, which
// knows the node fields independently of the kind lists.

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>

#include "vta/compiler/lower.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/te.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

/// A program using every expression and statement kind, each mentioning the loop variable `x`.
struct EveryKind {
  Var x = make_var("x");
  IterVar k = reduce_axis(2, "k");
  Tensor in = placeholder({4}, "in", DType::kInt8);
  Tensor out = placeholder({4}, "out", DType::kInt32);
  Tensor buf = placeholder({1, 16}, "buf", DType::kInt8);

  Expr value() const {
    const Expr a = cast(DType::kInt32, make_read(in, {floormod(Expr(x) + 1 - 1, 4)}));  // Read Cast Add Sub FloorMod
    const Expr b = max(min(a * 2, 100), -100) >> 1;                                     // Mul Min Max Shr
    return select(logical_and(Expr(x) < make_int(3), Expr(x) >= make_int(0)), b,
                  floordiv(a, 2));  // Select And Lt Ge FloorDiv
  }
  Stmt program() const {
    const Stmt store = make_store(out, {x}, value());
    const Stmt reduce = make_store(out, {x}, make_reduce(Expr(x) + Expr(k.var), {k}));
    std::vector<Expr> args{x};
    for (int64_t a : {1, 1, 1, 0, 0, 0, 0, 0, 2}) args.push_back(make_int(a));
    const Stmt dma = make_call(intrin::kLoadBuffer2D, buf, in, args);
    const Stmt body = make_seq({make_attr(x, attr::kPragmaAlu, store, Expr(x)), reduce, dma});
    return make_allocate(buf, "local.inp_buffer", make_for(x, 4, body));
  }
};

// ---- the independent reference: every field of every node, by hand ---------------------------------
void count(const Expr& e, std::map<std::string, int>& n) {
  if (!e) return;
  ++n[to_string(e->kind)];
  if (const auto* b = e->as<BinaryNode>()) count(b->a, n), count(b->b, n);
  if (const auto* s = e->as<SelectNode>()) count(s->cond, n), count(s->a, n), count(s->b, n);
  if (const auto* c = e->as<CastNode>()) count(c->value, n);
  if (const auto* r = e->as<ReadNode>()) {
    for (const auto& i : r->indices) count(i, n);
  }
  if (const auto* r = e->as<ReduceNode>()) count(r->body, n), count(r->init, n);
}
void count(const Stmt& s, std::map<std::string, int>& n) {
  if (!s) return;
  ++n[to_string(s->kind)];
  if (const auto* f = s->as<ForNode>()) count(f->body, n);
  if (const auto* a = s->as<AllocateNode>()) count(a->body, n);
  if (const auto* a = s->as<AttrNode>()) count(a->value, n), count(a->body, n);
  if (const auto* st = s->as<StoreNode>()) {
    for (const auto& i : st->indices) count(i, n);
    count(st->value, n);
  }
  if (const auto* c = s->as<CallNode>()) {
    for (const auto& a : c->args) count(a, n);
  }
  if (const auto* q = s->as<SeqNode>()) {
    for (const auto& c : q->seq) count(c, n);
  }
}

class Counter final : public IRVisitor {
 public:
  std::map<std::string, int> n;
  using IRVisitor::visit;

 protected:
  void visit_int(const Expr&, const IntNode& op) override { ++n[to_string(op.kind)]; }
  void visit_var(const Expr&, const VarNode& op) override { ++n[to_string(op.kind)]; }
  void visit_binary(const Expr& e, const BinaryNode& op) override {
    ++n[to_string(op.kind)], IRVisitor::visit_binary(e, op);
  }
  void visit_select(const Expr& e, const SelectNode& op) override {
    ++n[to_string(op.kind)], IRVisitor::visit_select(e, op);
  }
  void visit_cast(const Expr& e, const CastNode& op) override { ++n[to_string(op.kind)], IRVisitor::visit_cast(e, op); }
  void visit_read(const Expr& e, const ReadNode& op) override { ++n[to_string(op.kind)], IRVisitor::visit_read(e, op); }
  void visit_reduce(const Expr& e, const ReduceNode& op) override {
    ++n[to_string(op.kind)], IRVisitor::visit_reduce(e, op);
  }
  void visit_for(const Stmt& s, const ForNode& op) override { ++n[to_string(op.kind)], IRVisitor::visit_for(s, op); }
  void visit_store(const Stmt& s, const StoreNode& op) override {
    ++n[to_string(op.kind)], IRVisitor::visit_store(s, op);
  }
  void visit_seq(const Stmt& s, const SeqNode& op) override { ++n[to_string(op.kind)], IRVisitor::visit_seq(s, op); }
  void visit_allocate(const Stmt& s, const AllocateNode& op) override {
    ++n[to_string(op.kind)], IRVisitor::visit_allocate(s, op);
  }
  void visit_attr(const Stmt& s, const AttrNode& op) override { ++n[to_string(op.kind)], IRVisitor::visit_attr(s, op); }
  void visit_call(const Stmt& s, const CallNode& op) override { ++n[to_string(op.kind)], IRVisitor::visit_call(s, op); }
};

TEST(IRVisitor, ReachesEveryChildOfEveryKind) {
  const EveryKind p;
  std::map<std::string, int> expected;
  count(p.program(), expected);
  // the program holds every kind of both lists
  EXPECT_EQ(expected.size(), 17u + 6u);
  Counter c;
  c.visit(p.program());
  EXPECT_EQ(c.n, expected);
}

TEST(IRVisitor, ForEachWalksExpressionsAndStatementsInPreOrder) {
  const EveryKind p;
  std::map<std::string, int> expected;
  count(p.program(), expected);
  std::map<std::string, int> exprs, stmts;
  for_each_expr(p.program(), [&](const Expr& e) { ++exprs[to_string(e->kind)]; });
  std::vector<StmtKind> order;
  for_each_stmt(p.program(), [&](const Stmt& s) {
    ++stmts[to_string(s->kind)];
    order.push_back(s->kind);
  });
  for (const auto& [kind, n] : expected) EXPECT_EQ(exprs[kind] + stmts[kind], n) << kind;
  ASSERT_GE(order.size(), 2u);
  EXPECT_EQ(order[0], StmtKind::kAllocate);
  EXPECT_EQ(order[1], StmtKind::kFor);
  EXPECT_TRUE(uses_any(p.value(), {p.x.get()}));
  EXPECT_FALSE(uses_any(p.value(), {p.k.var.get()}));
}

TEST(IRMutator, DefaultRebuildsAnEqualTree) {
  const EveryKind p;
  const Stmt s = p.program();
  const Stmt copy = IRMutator().mutate(s);
  EXPECT_NE(copy.get(), s.get());
  EXPECT_EQ(to_text(copy), to_text(s));
}

TEST(IRMutator, OneOverriddenKindIsReachedEverywhere) {
  const EveryKind p;
  // substitute() overrides only variables: x must disappear from every expression holding it (the
  // loop and the annotation keep it as their variable)
  const Stmt s = substitute(p.program(), {{p.x.get(), make_int(2)}});
  int uses = 0;
  for_each_expr(s, [&](const Expr& e) { uses += e.get() == p.x.get(); });
  EXPECT_EQ(uses, 0) << to_text(s);
  int ints = 0;
  for_each_expr(s, [&](const Expr& e) { ints += is_const(e, 2); });
  EXPECT_GE(ints, 9) << "x appears in the store, the reduction, the annotation and the call";
  // the value of the expression at x = 2 by the interpreter: in[2] = 5 -> 5
  std::vector<int64_t> in{0, 0, 5, 0}, out(4, 0);
  run(make_store(p.out, {make_int(0)}, substitute(p.value(), {{p.x.get(), make_int(2)}})),
      {{p.in.get(), &in}, {p.out.get(), &out}});
  EXPECT_EQ(out[0], 5);  // select(2 < 3 && 2 >= 0, max(min(5*2, 100), -100) >> 1, ...) = 10 >> 1
}

TEST(IRKinds, EveryKindHasOneName) {
  std::set<std::string> names;
  int n = 0;
#define VTA_TEST_KIND(kind, handler, node) names.insert(to_string(ExprKind::k##kind)), ++n;
  VTA_IR_EXPR_KINDS(VTA_TEST_KIND)
#undef VTA_TEST_KIND
#define VTA_TEST_KIND(kind, handler, node) names.insert(to_string(StmtKind::k##kind)), ++n;
  VTA_IR_STMT_KINDS(VTA_TEST_KIND)
#undef VTA_TEST_KIND
  EXPECT_EQ(names.size(), size_t(n));
  EXPECT_EQ(names.count("?"), 0u);
  EXPECT_TRUE(is_binary(ExprKind::kShr));
  EXPECT_FALSE(is_binary(ExprKind::kSelect));
}

// Each kind is held by exactly one node struct, the one its list entry names; as<T>() answers for that
// struct only, to<T>() refuses the others by name.
// (the node structs, listed here independently of the kind lists)
int holders(ExprKind k) {
  return holds<IntNode>(k) + holds<VarNode>(k) + holds<BinaryNode>(k) + holds<SelectNode>(k) + holds<CastNode>(k) +
         holds<ReadNode>(k) + holds<ReduceNode>(k);
}
int holders(StmtKind k) {
  return holds<ForNode>(k) + holds<StoreNode>(k) + holds<SeqNode>(k) + holds<AllocateNode>(k) + holds<AttrNode>(k) +
         holds<CallNode>(k);
}

TEST(IRKinds, EveryKindHasOneNodeAndDowncastsAreChecked) {
  // (the node structs of a list may repeat: the binary kinds share one; each kind is held once)
#define VTA_TEST_ONE(kind, handler, node) EXPECT_EQ(holders(ExprKind::k##kind), 1) << #kind;
  VTA_IR_EXPR_KINDS(VTA_TEST_ONE)
#undef VTA_TEST_ONE
#define VTA_TEST_ONE(kind, handler, node) EXPECT_EQ(holders(StmtKind::k##kind), 1) << #kind;
  VTA_IR_STMT_KINDS(VTA_TEST_ONE)
#undef VTA_TEST_ONE
  const EveryKind p;
  const Expr v = p.value();
  ASSERT_NE(v->as<SelectNode>(), nullptr);
  EXPECT_EQ(v->as<BinaryNode>(), nullptr);
  EXPECT_EQ(v->as<IntNode>(), nullptr);
  EXPECT_EQ(&v->to<SelectNode>(), v->as<SelectNode>());
  try {
    (void)v->to<ReadNode>();
    ADD_FAILURE() << "a select taken for a read";
  } catch (const InternalError& e) {
    EXPECT_EQ(std::string(e.what()), "expected a read, found a Select expression");
  }
  const Stmt s = p.program();
  ASSERT_NE(s->as<AllocateNode>(), nullptr);
  EXPECT_EQ(s->as<ForNode>(), nullptr);
  EXPECT_THROW((void)s->to<CallNode>(), InternalError);
  EXPECT_EQ(const_int(make_int(7)), 7);
  EXPECT_EQ(const_int(Expr(p.x)), std::nullopt);
  EXPECT_EQ(const_int(nullptr), std::nullopt);
}

// Every node's constructor function (make_x) refuses what the node cannot hold, by name.
TEST(IRNodes, MakeValidates) {
  const EveryKind p;
  EXPECT_THROW((void)make_binary(ExprKind::kSelect, make_int(1), make_int(2)), InternalError);
  EXPECT_THROW((void)make_binary(ExprKind::kAdd, make_int(1), make_int(2, DType::kInt8)), ScheduleError);
  EXPECT_EQ(make_binary(ExprKind::kLt, make_int(1), make_int(2))->dtype, DType::kBool);
  EXPECT_THROW((void)make_select(make_int(1), make_int(1), make_int(2)), ScheduleError);            // not a comparison
  EXPECT_THROW((void)make_read(p.in, {}), ScheduleError);                                           // rank 1, no index
  EXPECT_THROW((void)make_reduce(make_int(1), {IterVar{p.x, 4, false}}), ScheduleError);            // not a reduce_axis
  EXPECT_THROW((void)make_allocate(p.buf, "local.inp_buffer", make_seq({}), {16}), InternalError);  // rank
  EXPECT_EQ(make_seq({make_seq({})})->kind, StmtKind::kSeq);
  const Stmt one = make_call(intrin::kSync, nullptr, nullptr, {});
  EXPECT_EQ(make_seq({one}).get(), one.get()) << "a sequence of one statement is the statement";
  EXPECT_EQ(make_cast(DType::kInt8, make_int(300))->to<CastNode>().value->to<IntNode>().value, 300);
}

}  // namespace
}  // namespace vta::compiler
