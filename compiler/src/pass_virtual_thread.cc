// Virtual threads (the tutorials' `cthread`): the thread loop's iterations are independent programs
// whose statements are interleaved so that one thread's loads overlap another's compute.
//
// replicate_thread_buffers (early): every buffer written inside the thread loop gets one copy per
// thread (leading dimension T, indexed by the thread variable), so the threads share no SRAM.
// inject_virtual_threads (last): the thread loop is pushed inside the program's loops; each block of
// the single-thread program becomes T blocks, one per thread: a `cthread.s` loop when the block holds
// loops or micro-op kernels, else unrolled copies (the seeds' listing).

#include <functional>
#include <set>

#include "vta/compiler/lower.h"
#include "vta/compiler/mutator.h"
#include "vta/compiler/pass.h"

namespace vta::compiler {
namespace {

/// Finds the virtual-thread attribute; checks that it is the outermost statement below allocations.
const StmtNode* find_thread(const Stmt& s) {
  const StmtNode* found = nullptr;
  std::function<void(const Stmt&, bool)> walk = [&](const Stmt& x, bool top) {
    switch (x->kind) {
      case StmtKind::kAttr:
        if (x->scope == "virtual_thread") {
          if (found != nullptr) throw ScheduleError("virtual threads: only one loop can be bound to cthread");
          if (!top) {
            throw ScheduleError("virtual threads: the loop " + x->var->name +
                                " bound to cthread must be the outermost loop of the program (reorder it first)");
          }
          found = x.get();
          walk(x->body, false);
          return;
        }
        walk(x->body, top);
        return;
      case StmtKind::kAllocate: walk(x->body, top); return;
      case StmtKind::kFor: walk(x->body, false); return;
      case StmtKind::kSeq:
        for (const auto& c : x->seq) walk(c, top && x->seq.size() == 1);
        return;
      default: return;
    }
  };
  walk(s, true);
  return found;
}

class Replicate final : public IRMutator {
 public:
  Replicate(Var tx, int64_t threads, std::map<const TensorNode*, Tensor> copies)
      : tx_(std::move(tx)), threads_(threads), copies_(std::move(copies)) {}

 protected:
  Expr visit_read(const Expr& e) override {
    auto it = copies_.find(e->tensor.get());
    if (it == copies_.end()) return IRMutator::visit_read(e);
    std::vector<Expr> idx{tx_};
    for (const auto& i : e->indices) idx.push_back(mutate(i));
    return make_read(it->second, std::move(idx));
  }
  Stmt visit_store(const Stmt& s) override {
    auto it = copies_.find(s->tensor.get());
    if (it == copies_.end()) return IRMutator::visit_store(s);
    std::vector<Expr> idx{tx_};
    for (const auto& i : s->indices) idx.push_back(mutate(i));
    return make_store(it->second, std::move(idx), mutate(s->value));
  }
  Stmt visit_allocate(const Stmt& s) override {
    auto it = copies_.find(s->tensor.get());
    if (it == copies_.end()) return IRMutator::visit_allocate(s);
    std::vector<int64_t> shape{threads_};
    shape.insert(shape.end(), s->shape.begin(), s->shape.end());
    return make_allocate(it->second, s->scope, mutate(s->body), shape);
  }

 private:
  Var tx_;
  int64_t threads_;
  std::map<const TensorNode*, Tensor> copies_;
};

bool has_loop_or_kernel(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kFor: return true;
    case StmtKind::kAttr: return s->scope == "coproc_uop_scope" || has_loop_or_kernel(s->body);
    case StmtKind::kAllocate: return has_loop_or_kernel(s->body);
    case StmtKind::kSeq:
      for (const auto& c : s->seq) {
        if (has_loop_or_kernel(c)) return true;
      }
      return false;
    default: return false;
  }
}

struct Injector {
  Var tx;
  int64_t threads;
  int loops = 0;

  Stmt inject(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kFor: return make_for(s->var, s->extent, inject(s->body));
      case StmtKind::kSeq: {
        std::vector<Stmt> v;
        for (const auto& c : s->seq) v.push_back(inject(c));
        return make_seq(std::move(v));
      }
      case StmtKind::kAllocate: return make_allocate(s->tensor, s->scope, inject(s->body), s->shape);
      default: break;
    }
    if (has_loop_or_kernel(s)) {
      Var v = make_var(loops == 0 ? "cthread.s" : "cthread.s_" + std::to_string(loops));
      ++loops;
      return make_for(v, threads, substitute(s, {{tx.get(), v}}));
    }
    std::vector<Stmt> copies;
    for (int64_t t = 0; t < threads; ++t) copies.push_back(simplify(substitute(s, {{tx.get(), make_int(t)}})));
    return make_seq(std::move(copies));
  }
};

}  // namespace

Stmt replicate_thread_buffers(const Stmt& s) {
  const StmtNode* attr = find_thread(s);
  if (attr == nullptr) return s;
  if (attr->body->kind != StmtKind::kFor || attr->body->var != attr->var) {
    // a thread loop of extent 1 was removed by simplification: one thread, nothing to replicate
    std::function<Stmt(const Stmt&)> drop = [&](const Stmt& x) -> Stmt {
      if (x.get() == attr) return x->body;
      if (x->kind == StmtKind::kAllocate) return make_allocate(x->tensor, x->scope, drop(x->body), x->shape);
      if (x->kind == StmtKind::kAttr) return make_attr(x->var, x->scope, drop(x->body), x->value);
      if (x->kind == StmtKind::kSeq && x->seq.size() == 1) return make_seq({drop(x->seq[0])});
      return x;
    };
    return drop(s);
  }
  const Var& tx = attr->var;
  const int64_t threads = attr->body->extent;
  // the allocated tensors written inside the thread loop
  std::set<const TensorNode*> allocated, written;
  std::map<const TensorNode*, Tensor> copies;
  std::function<void(const Stmt&, bool)> walk = [&](const Stmt& x, bool inside) {
    inside = inside || x.get() == attr;
    switch (x->kind) {
      case StmtKind::kAllocate: allocated.insert(x->tensor.get()); walk(x->body, inside); return;
      case StmtKind::kFor:
      case StmtKind::kAttr: walk(x->body, inside); return;
      case StmtKind::kSeq:
        for (const auto& c : x->seq) walk(c, inside);
        return;
      case StmtKind::kStore:
        if (inside && allocated.count(x->tensor.get()) && !copies.count(x->tensor.get())) {
          auto n = std::make_shared<TensorNode>(*x->tensor);
          n->shape.insert(n->shape.begin(), threads);
          copies[x->tensor.get()] = n;
        }
        return;
      default: return;
    }
  };
  walk(s, false);
  return Replicate(tx, threads, copies).mutate(s);
}

Stmt inject_virtual_threads(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kAllocate: return make_allocate(s->tensor, s->scope, inject_virtual_threads(s->body), s->shape);
    case StmtKind::kSeq: {
      std::vector<Stmt> v;
      for (const auto& c : s->seq) v.push_back(inject_virtual_threads(c));
      return make_seq(std::move(v));
    }
    case StmtKind::kAttr:
      if (s->scope == "virtual_thread") {
        if (s->body->kind != StmtKind::kFor || s->body->var != s->var) {
          throw InternalError("inject_virtual_threads: the thread attribute does not hold its loop");
        }
        Injector in{s->var, s->body->extent};
        return in.inject(s->body->body);
      }
      return s;
    default: return s;
  }
}

}  // namespace vta::compiler
