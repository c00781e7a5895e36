// Virtual threads (the tutorials' `cthread`): the thread loop's iterations are independent programs
// whose statements are interleaved so that one thread's loads overlap another's compute.
//
// replicate_thread_buffers (early): every buffer written inside the thread loop gets one copy per
// thread (leading dimension T, indexed by the thread variable), so the threads share no SRAM.
// inject_virtual_threads (last): the thread loop is pushed inside the program's loops; each block of
// the single-thread program becomes T blocks, one per thread: a `cthread.s` loop when the block holds
// loops or micro-op kernels, else unrolled copies (the seeds' listing).

#include <set>

#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

/// Finds the virtual-thread attribute; checks that it is the outermost statement below allocations.
class FindThread final : public IRVisitor {
 public:
  const AttrNode* found = nullptr;
  using IRVisitor::visit;

 private:
  void visit_attr(const Stmt&, const AttrNode& op) override {
    if (op.key != attr::kVirtualThread) return visit(op.body);
    if (found != nullptr) throw ScheduleError("virtual threads: only one loop can be bound to cthread");
    if (!top_) {
      throw ScheduleError("virtual threads: the loop " + op.var->name +
                          " bound to cthread must be the outermost loop of the program (reorder it first)");
    }
    found = &op;
    nested(op.body, false);
  }
  void visit_for(const Stmt&, const ForNode& op) override { nested(op.body, false); }
  void visit_seq(const Stmt&, const SeqNode& op) override {
    for (const auto& c : op.seq) nested(c, top_ && op.seq.size() == 1);
  }
  void visit_store(const Stmt&, const StoreNode&) override {}
  void visit_call(const Stmt&, const CallNode&) override {}
  /// Visits `s` with `top` = whether it is still the outermost statement.
  void nested(const Stmt& s, bool top) {
    const bool outer = top_;
    top_ = top;
    visit(s);
    top_ = outer;
  }
  bool top_ = true;
};

/// The allocated tensors written inside the thread loop `attr`, each with its per-thread copy.
class ThreadWrites final : public IRVisitor {
 public:
  ThreadWrites(const AttrNode* attr, int64_t threads) : attr_(attr), threads_(threads) {}
  std::map<const TensorNode*, Tensor> copies;
  using IRVisitor::visit;

 private:
  void visit_attr(const Stmt& x, const AttrNode& op) override {
    const bool outer = inside_;
    inside_ = inside_ || &op == attr_;
    IRVisitor::visit_attr(x, op);
    inside_ = outer;
  }
  void visit_allocate(const Stmt& x, const AllocateNode& op) override {
    allocated_.insert(op.tensor.get());
    IRVisitor::visit_allocate(x, op);
  }
  void visit_store(const Stmt&, const StoreNode& op) override {
    if (inside_ && allocated_.count(op.tensor.get()) && !copies.count(op.tensor.get())) {
      auto n = std::make_shared<TensorNode>(*op.tensor);
      n->shape.insert(n->shape.begin(), threads_);
      n->thread_copies = threads_;
      copies[op.tensor.get()] = n;
    }
  }
  const AttrNode* attr_;
  int64_t threads_;
  bool inside_ = false;
  std::set<const TensorNode*> allocated_;
};

/// Removes the attribute `attr` (keeps its body).
class DropAttr final : public IRMutator {
 public:
  explicit DropAttr(const AttrNode* attr) : attr_(attr) {}
  using IRMutator::mutate;

 private:
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override {
    return &op == attr_ ? op.body : IRMutator::visit_attr(s, op);
  }
  const AttrNode* attr_;
};

class Replicate final : public IRMutator {
 public:
  Replicate(Var tx, int64_t threads, std::map<const TensorNode*, Tensor> copies)
      : tx_(std::move(tx)), threads_(threads), copies_(std::move(copies)) {}

 protected:
  Expr visit_read(const Expr& e, const ReadNode& op) override {
    auto it = copies_.find(op.tensor.get());
    if (it == copies_.end()) return IRMutator::visit_read(e, op);
    std::vector<Expr> idx{tx_};
    for (const auto& i : op.indices) idx.push_back(mutate(i));
    return make_read(it->second, std::move(idx));
  }
  Stmt visit_store(const Stmt& s, const StoreNode& op) override {
    auto it = copies_.find(op.tensor.get());
    if (it == copies_.end()) return IRMutator::visit_store(s, op);
    std::vector<Expr> idx{tx_};
    for (const auto& i : op.indices) idx.push_back(mutate(i));
    return make_store(it->second, std::move(idx), mutate(op.value));
  }
  Stmt visit_allocate(const Stmt& s, const AllocateNode& op) override {
    auto it = copies_.find(op.tensor.get());
    if (it == copies_.end()) return IRMutator::visit_allocate(s, op);
    std::vector<int64_t> shape{threads_};
    shape.insert(shape.end(), op.shape.begin(), op.shape.end());
    return make_allocate(it->second, op.scope, mutate(op.body), shape);
  }

 private:
  Var tx_;
  int64_t threads_;
  std::map<const TensorNode*, Tensor> copies_;
};

bool has_loop_or_kernel(const Stmt& s) {
  bool found = false;
  for_each_stmt(s, [&](const Stmt& x) {
    found = found || x->kind == StmtKind::kFor || as_attr(x, attr::kCoprocUopScope) != nullptr;
  });
  return found;
}

/// The thread loop pushed inside the program's loops: each block of the single-thread program
/// becomes one per thread.
class Injector final : public IRMutator {
 public:
  Injector(Var tx, int64_t threads) : tx_(std::move(tx)), threads_(threads) {}
  using IRMutator::mutate;

 private:
  Stmt visit_store(const Stmt& s, const StoreNode&) override { return per_thread(s); }
  Stmt visit_attr(const Stmt& s, const AttrNode&) override { return per_thread(s); }
  Stmt visit_call(const Stmt& s, const CallNode&) override { return per_thread(s); }

  Stmt per_thread(const Stmt& s) {
    if (has_loop_or_kernel(s)) {
      Var v = make_var(loops_ == 0 ? "cthread.s" : "cthread.s_" + std::to_string(loops_));
      ++loops_;
      return make_for(v, threads_, substitute(s, {{tx_.get(), v}}));
    }
    std::vector<Stmt> copies;
    for (int64_t t = 0; t < threads_; ++t) copies.push_back(simplify(substitute(s, {{tx_.get(), make_int(t)}})));
    return make_seq(std::move(copies));
  }

  Var tx_;
  int64_t threads_;
  int loops_ = 0;
};

/// Replaces the thread attribute (below allocations and sequences) by the injected threads.
class InjectThreads final : public IRMutator {
 public:
  using IRMutator::mutate;

 private:
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override {
    if (op.key != attr::kVirtualThread) return s;
    const ForNode* loop = as_loop_over(op.body, op.var);
    if (loop == nullptr) throw InternalError("inject_virtual_threads: the thread attribute does not hold its loop");
    return Injector(op.var, loop->extent).mutate(loop->body);
  }
  Stmt visit_for(const Stmt& s, const ForNode&) override { return s; }
  Stmt visit_store(const Stmt& s, const StoreNode&) override { return s; }
  Stmt visit_call(const Stmt& s, const CallNode&) override { return s; }
};

}  // namespace

Stmt replicate_thread_buffers(const Stmt& s) {
  FindThread find;
  find.visit(s);
  const AttrNode* attr = find.found;
  if (attr == nullptr) return s;
  // a thread loop of extent 1 was removed by simplification: one thread, nothing to replicate
  const ForNode* loop = as_loop_over(attr->body, attr->var);
  if (loop == nullptr) return DropAttr(attr).mutate(s);
  const Var& tx = attr->var;
  const int64_t threads = loop->extent;
  ThreadWrites writes(attr, threads);
  writes.visit(s);
  return Replicate(tx, threads, writes.copies).mutate(s);
}

Stmt inject_virtual_threads(const Stmt& s) { return InjectThreads().mutate(s); }

}  // namespace vta::compiler
