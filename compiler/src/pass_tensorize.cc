// GEMM tensorization. The region under `tensorize gemm` must be exactly one VTA GEMM on whole elements:
//   acc[.., b, o] = acc[.., b, o] + cast(inp[.., b, k]) * cast(wgt[.., o, k])   (update)
//   acc[.., b, o] = 0                                                            (reset)
// with b, o, k the region's loops over BATCH, BLOCK_OUT and BLOCK_IN (b absent when BATCH is 1). It
// becomes one micro-op on the elements' SRAM indices. Then each loop nest around GEMM micro-ops
// becomes a kernel (uop.h): two outer loops folded, the others unrolled.

#include <algorithm>

#include "sram.h"
#include "uop.h"
#include "vta/compiler/lower.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

Expr strip_cast(const Expr& e) { return e->kind == ExprKind::kCast ? e->a : e; }

class Tensorize final : public IRMutator {
 public:
  Tensorize(const Stmt& s, const Env& env) : env_(env), plan_(s, env) {}

 private:
  Stmt visit_attr(const Stmt& s) override {
    return s->key == attr::kTensorizeGemm ? region(s) : IRMutator::visit_attr(s);
  }

  Stmt region(const Stmt& attr) {
    const LoopNest nest = perfect_nest(attr->body);
    const std::vector<Loop>& loops = nest.loops;
    const Stmt& s = nest.body;
    std::string where = "tensorize gemm at axis " + attr->var->name;
    if (s->kind != StmtKind::kStore || s->flat) {
      throw ScheduleError(where +
                          ": the loops inside the axis must hold exactly one GEMM update (a perfect loop nest)");
    }
    const Tensor& acc = s->tensor;
    where = "stage " + acc->name + ", " + where;
    if (plan_.scope_of(acc) != env_.acc_scope) {
      throw ScheduleError(where + ": the output is in " + plan_.scope_of(acc) + ", not " + env_.acc_scope);
    }
    // the element loops
    std::vector<const ExprNode*> used;
    auto element = [&](const Expr& i, int64_t extent, const char* what) -> const ExprNode* {
      if (extent == 1 && i->kind == ExprKind::kInt && i->value == 0) return nullptr;
      for (const auto& l : loops) {
        if (l.var.get() == i.get()) {
          if (l.extent != extent) {
            throw ScheduleError(where + ": loop " + l.var->name + " runs " + std::to_string(l.extent) +
                                " times over the " + what + " dimension of " + std::to_string(extent) +
                                " (the GEMM takes whole elements)");
          }
          used.push_back(i.get());
          return i.get();
        }
      }
      throw ScheduleError(where + ": the " + std::string(what) + " index " + to_text(i) +
                          " is not a loop inside the tensorized axis (tensorize the element's outermost loop)");
    };
    const size_t r = acc->shape.size();
    const ExprNode* b = element(s->indices[r - 2], env_.BATCH, "batch");
    const ExprNode* o = element(s->indices[r - 1], env_.BLOCK_OUT, "output channel");
    std::vector<Expr> push(8, make_int(0));
    push[kUopDst] = plan_.sram_index(acc, s->indices);
    const Expr& v = s->value;
    if (v->kind == ExprKind::kInt && v->value == 0) {
      push[kUopReset] = make_int(1);
    } else {
      Expr prod;
      if (v->kind == ExprKind::kAdd && v->a->kind == ExprKind::kRead && v->a->tensor == acc) prod = v->b;
      if (v->kind == ExprKind::kAdd && v->b->kind == ExprKind::kRead && v->b->tensor == acc) prod = v->a;
      if (!prod || prod->kind != ExprKind::kMul) {
        throw ScheduleError(where + ": the body " + to_text(v) + " is not acc + inp * wgt");
      }
      Expr x = strip_cast(prod->a), y = strip_cast(prod->b);
      if (x->kind != ExprKind::kRead || y->kind != ExprKind::kRead) {
        throw ScheduleError(where + ": the product " + to_text(prod) + " does not read two buffers");
      }
      if (plan_.scope_of(x->tensor) == env_.wgt_scope) std::swap(x, y);
      if (plan_.scope_of(x->tensor) != env_.inp_scope || plan_.scope_of(y->tensor) != env_.wgt_scope) {
        throw ScheduleError(where + ": the product must read one " + env_.inp_scope + " buffer and one " +
                            env_.wgt_scope + " buffer; it reads " + x->tensor->name + " (" + plan_.scope_of(x->tensor) +
                            ") and " + y->tensor->name + " (" + plan_.scope_of(y->tensor) + ")");
      }
      const size_t ri = x->indices.size(), rw = y->indices.size();
      const ExprNode* xb = element(x->indices[ri - 2], env_.BATCH, "batch");
      const ExprNode* k = element(x->indices[ri - 1], env_.BLOCK_IN, "reduction");
      const ExprNode* yo = element(y->indices[rw - 2], env_.BLOCK_OUT, "output channel");
      const ExprNode* yk = element(y->indices[rw - 1], env_.BLOCK_IN, "reduction");
      if (xb != b || yo != o || yk != k) {
        throw ScheduleError(where + ": the input and weight elements are not indexed as a matrix product of " +
                            acc->name + "'s element");
      }
      push[kUopSrc] = plan_.sram_index(x->tensor, x->indices);
      push[kUopWgt] = plan_.sram_index(y->tensor, y->indices);
    }
    for (const auto& l : loops) {
      if (std::find(used.begin(), used.end(), l.var.get()) == used.end()) {
        throw ScheduleError(where + ": loop " + l.var->name +
                            " inside the tensorized axis is not a dimension of the GEMM element");
      }
    }
    return make_call(intrin::kUopPush, nullptr, nullptr, push);
  }

  const Env& env_;
  SramPlan plan_;
};

bool is_gemm_push(const Stmt& s) {
  return s->kind == StmtKind::kCall && s->name == intrin::kUopPush && s->args[kUopMode]->kind == ExprKind::kInt &&
         s->args[kUopMode]->value == 0;
}

/// Loop nests around a GEMM micro-op become kernels.
class Kernels final : public IRMutator {
 public:
  explicit Kernels(const Env& env) : env_(env) {}
  using IRMutator::mutate;

 private:
  Stmt visit_for(const Stmt& s) override {
    const LoopNest nest = perfect_nest(s);
    const std::vector<Loop>& loops = nest.loops;
    const Stmt& x = nest.body;
    if (is_gemm_push(x)) return make_uop_kernel(loops, x->args, false, env_, "GEMM kernel at loop " + s->var->name);
    return IRMutator::visit_for(s);
  }
  Stmt visit_call(const Stmt& s) override {
    return is_gemm_push(s) ? make_uop_kernel({}, s->args, false, env_, "GEMM kernel") : s;
  }
  Stmt visit_attr(const Stmt& s) override {
    if (s->key == attr::kCoprocUopScope) return s;
    if (s->key == attr::kVirtualThread && s->body->kind == StmtKind::kFor) {  // the thread loop is no kernel loop
      return make_attr(s->var, s->key, make_for(s->body->var, s->body->extent, mutate(s->body->body)), s->value);
    }
    return IRMutator::visit_attr(s);
  }
  Stmt visit_store(const Stmt& s) override { return s; }

  const Env& env_;
};

}  // namespace

Stmt tensorize_gemm(const Stmt& s, const Env& env) {
  Tensorize t(s, env);
  return Kernels(env).mutate(simplify(t.mutate(s)));
}

}  // namespace vta::compiler
