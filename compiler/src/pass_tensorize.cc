// GEMM tensorization. The region under `tensorize gemm` must be exactly one VTA GEMM on whole elements:
//   acc[.., b, o] = acc[.., b, o] + cast(inp[.., b, k]) * cast(wgt[.., o, k])   (update)
//   acc[.., b, o] = 0                                                            (reset)
// with b, o, k the region's loops over BATCH, BLOCK_OUT and BLOCK_IN (b absent when BATCH is 1). It
// becomes one micro-op on the elements' SRAM indices. Then each loop nest around GEMM micro-ops
// becomes a kernel (uop.h): two outer loops folded, the others unrolled.

#include <algorithm>

#include "sram.h"
#include "uop.h"
#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/printer.h"
#include "vta/compiler/visitor.h"

namespace vta::compiler {
namespace {

Expr strip_cast(const Expr& e) {
  const auto* c = e->as<CastNode>();
  return c != nullptr ? c->value : e;
}

/// `e` as a read of `t`; nullptr when it is anything else.
const ReadNode* read_of(const Expr& e, const Tensor& t) {
  const auto* r = e->as<ReadNode>();
  return r != nullptr && r->tensor == t ? r : nullptr;
}

class Tensorize final : public IRMutator {
 public:
  Tensorize(const Stmt& s, const Env& env) : env_(env), plan_(s, env) {}

 private:
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override {
    return op.key == attr::kTensorizeGemm ? region(op) : IRMutator::visit_attr(s, op);
  }

  Stmt region(const AttrNode& attr) {
    const LoopNest nest = perfect_nest(attr.body);
    const std::vector<Loop>& loops = nest.loops;
    const auto* s = nest.body->as<StoreNode>();
    std::string where = "tensorize gemm at axis " + attr.var->name;
    if (s == nullptr || s->flat) {
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
      if (extent == 1 && is_const(i, 0)) return nullptr;
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
    if (is_const(v, 0)) {
      push[kUopReset] = make_int(1);
    } else {
      Expr product;
      if (const auto* sum = v->as<BinaryNode>(); sum != nullptr && sum->kind == ExprKind::kAdd) {
        if (read_of(sum->a, acc) != nullptr) product = sum->b;
        if (read_of(sum->b, acc) != nullptr) product = sum->a;
      }
      const auto* prod = product ? product->as<BinaryNode>() : nullptr;
      if (prod == nullptr || prod->kind != ExprKind::kMul) {
        throw ScheduleError(where + ": the body " + to_text(v) + " is not acc + inp * wgt");
      }
      const auto* x = strip_cast(prod->a)->as<ReadNode>();
      const auto* y = strip_cast(prod->b)->as<ReadNode>();
      if (x == nullptr || y == nullptr) {
        throw ScheduleError(where + ": the product " + to_text(product) + " does not read two buffers");
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

/// `s` as a GEMM micro-op push; nullptr when it is anything else.
const CallNode* gemm_push(const Stmt& s) {
  const auto* c = s->as<CallNode>();
  return c != nullptr && c->name == intrin::kUopPush && is_const(c->args[kUopMode], 0) ? c : nullptr;
}

/// Loop nests around a GEMM micro-op become kernels.
class Kernels final : public IRMutator {
 public:
  explicit Kernels(const Env& env) : env_(env) {}
  using IRMutator::mutate;

 private:
  Stmt visit_for(const Stmt& s, const ForNode& op) override {
    const LoopNest nest = perfect_nest(s);
    const std::vector<Loop>& loops = nest.loops;
    if (const CallNode* push = gemm_push(nest.body)) {
      return make_uop_kernel(loops, push->args, false, env_, "GEMM kernel at loop " + op.var->name);
    }
    return IRMutator::visit_for(s, op);
  }
  Stmt visit_call(const Stmt& s, const CallNode& op) override {
    return gemm_push(s) != nullptr ? make_uop_kernel({}, op.args, false, env_, "GEMM kernel") : s;
  }
  Stmt visit_attr(const Stmt& s, const AttrNode& op) override {
    if (op.key == attr::kCoprocUopScope) return s;
    const auto* loop = op.body->as<ForNode>();
    if (op.key == attr::kVirtualThread && loop != nullptr) {  // the thread loop is no kernel loop
      return make_attr(op.var, op.key, make_for(loop->var, loop->extent, mutate(loop->body)), op.value);
    }
    return IRMutator::visit_attr(s, op);
  }
  Stmt visit_store(const Stmt& s, const StoreNode&) override { return s; }

  const Env& env_;
};

}  // namespace

Stmt tensorize_gemm(const Stmt& s, const Env& env) {
  Tensorize t(s, env);
  return Kernels(env).mutate(simplify(t.mutate(s)));
}

}  // namespace vta::compiler
