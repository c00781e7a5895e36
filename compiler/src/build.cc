// The executor of lowered programs: walks the final IR and calls the VTA runtime.

#include "vta/compiler/build.h"

#include <algorithm>
#include <functional>
#include <set>

#include "uop.h"
#include "vta/device.h"
#include "vta/runtime.h"

namespace vta::compiler {
namespace {

/// Wait bound of the final VTASynchronize (cycles of the device), as the tutorials' programs use.
constexpr uint32_t kSyncWaitCycles = 1u << 31;

struct Executor;
/// The kernel being built: micro-op kernels are C callbacks, so they find their context here.
thread_local const Executor* current_executor = nullptr;
thread_local const StmtNode* current_kernel = nullptr;

struct Executor {
  std::map<const TensorNode*, void*> handles;
  std::map<const ExprNode*, int64_t> vars;
  std::map<const ExprNode*, int64_t> extents;
  std::map<const StmtNode*, void*>* kernels;
  VTACommandHandle cmd = nullptr;

  int64_t eval(const Expr& e) const {
    switch (e->kind) {
      case ExprKind::kInt: return e->value;
      case ExprKind::kVar: {
        auto it = vars.find(e.get());
        if (it == vars.end()) throw InternalError("build: variable " + e->name + " is not bound");
        return it->second;
      }
      default: break;
    }
    if (!e->a || !e->b) throw InternalError("build: cannot evaluate " + to_text(e) + " on the host");
    return eval_binary(e, eval(e->a), eval(e->b));
  }
  uint32_t u32(const Expr& e) const {
    const int64_t v = eval(e);
    if (v < 0 || v > int64_t(UINT32_MAX)) {
      throw InternalError("build: the argument " + to_text(e) + " = " + std::to_string(v) + " is not an unsigned 32-bit value");
    }
    return uint32_t(v);
  }
  void check(int rc, const std::string& what) const {
    if (rc != 0) throw RuntimeError(what + " failed: " + VTARuntimeGetLastError());
  }
  void* handle(const Tensor& t) const {
    auto it = handles.find(t.get());
    if (it == handles.end()) throw InternalError("build: no device buffer for " + t->name);
    return it->second;
  }

  /// Inside a kernel callback: the micro-op loops and pushes.
  void uops(const Stmt& s) const {
    switch (s->kind) {
      case StmtKind::kSeq:
        for (const auto& c : s->seq) uops(c);
        return;
      case StmtKind::kFor: {
        auto& self = const_cast<Executor&>(*this);
        for (int64_t i = 0; i < s->extent; ++i) {
          self.vars[s->var.get()] = i;
          uops(s->body);
        }
        self.vars.erase(s->var.get());
        return;
      }
      case StmtKind::kCall:
        if (s->scope == "VTAUopLoopBegin") {
          VTAUopLoopBegin(u32(s->args[0]), u32(s->args[1]), u32(s->args[2]), u32(s->args[3]));
        } else if (s->scope == "VTAUopLoopEnd") {
          VTAUopLoopEnd();
        } else if (s->scope == "vta.uop_push") {
          const auto& a = s->args;
          VTAUopPush(u32(a[kUopMode]), u32(a[kUopReset]), u32(a[kUopDst]), u32(a[kUopSrc]), u32(a[kUopWgt]),
                     u32(a[kUopOpcode]), u32(a[kUopUseImm]), int32_t(eval(a[kUopImm])));
        } else {
          throw InternalError("build: " + s->scope + " inside a micro-op kernel");
        }
        return;
      default: throw InternalError("build: unexpected statement inside a micro-op kernel");
    }
  }
  static int kernel_init(void*) {
    current_executor->uops(current_kernel->body);
    return 0;
  }

  void kernel(const Stmt& s) {
    // the kernel's free variables (bound outside it) select its instance: the closure the runtime
    // caches it by, a mixed-radix number of their values
    std::set<const ExprNode*> bound;
    std::vector<const ExprNode*> free;
    std::function<void(const Expr&)> fv = [&](const Expr& e) {
      if (!e) return;
      if (e->kind == ExprKind::kVar && !bound.count(e.get()) &&
          std::find(free.begin(), free.end(), e.get()) == free.end()) {
        free.push_back(e.get());
      }
      fv(e->a), fv(e->b), fv(e->cond);
      for (const auto& i : e->indices) fv(i);
    };
    std::function<void(const Stmt&)> walk = [&](const Stmt& x) {
      if (x->kind == StmtKind::kFor) bound.insert(x->var.get()), walk(x->body);
      if (x->kind == StmtKind::kSeq) {
        for (const auto& c : x->seq) walk(c);
      }
      if (x->kind == StmtKind::kCall) {
        for (const auto& a : x->args) fv(a);
      }
    };
    walk(s->body);
    int64_t closure = 0;
    for (const ExprNode* v : free) {
      auto e = extents.find(v);
      if (e == extents.end()) throw InternalError("build: kernel variable " + v->name + " has no loop");
      closure = closure * e->second + vars.at(v);
    }
    if (closure > INT32_MAX) throw InternalError("build: a kernel's closure does not fit 32 bits");
    int32_t sig = int32_t(closure);
    void** h = &(*kernels)[s.get()];
    current_executor = this;
    current_kernel = s.get();
    const bool alu = s->value && s->value->value == 1;
    const int rc = alu ? VTAPushALUOp(h, &Executor::kernel_init, free.empty() ? nullptr : &sig, free.empty() ? 0 : 4)
                       : VTAPushGEMMOp(h, &Executor::kernel_init, free.empty() ? nullptr : &sig, free.empty() ? 0 : 4);
    current_executor = nullptr;
    current_kernel = nullptr;
    check(rc, alu ? "VTAPushALUOp" : "VTAPushGEMMOp");
  }

  void exec(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kFor:
        extents[s->var.get()] = s->extent;
        for (int64_t i = 0; i < s->extent; ++i) {
          vars[s->var.get()] = i;
          exec(s->body);
        }
        vars.erase(s->var.get());
        return;
      case StmtKind::kSeq:
        for (const auto& c : s->seq) exec(c);
        return;
      case StmtKind::kAllocate: exec(s->body); return;
      case StmtKind::kAttr:
        if (s->scope == "coproc_uop_scope") return kernel(s);
        exec(s->body);
        return;
      case StmtKind::kStore: throw InternalError("build: a host store to " + s->tensor->name + " in the final program");
      case StmtKind::kCall: break;
    }
    const auto& a = s->args;
    if (s->scope == "VTALoadBuffer2D") {
      VTALoadBuffer2D(cmd, handle(s->src), u32(a[0]), u32(a[1]), u32(a[2]), u32(a[3]), u32(a[4]), u32(a[5]), u32(a[6]),
                      u32(a[7]), u32(a[8]), u32(a[9]));
    } else if (s->scope == "VTAStoreBuffer2D") {
      VTAStoreBuffer2D(cmd, u32(a[0]), u32(a[1]), handle(s->tensor), u32(a[2]), u32(a[3]), u32(a[4]), u32(a[5]));
    } else if (s->scope == "vta.coproc_dep_push") {
      check(VTADepPush(cmd, int(eval(a[0])), int(eval(a[1]))), "VTADepPush");
    } else if (s->scope == "vta.coproc_dep_pop") {
      check(VTADepPop(cmd, int(eval(a[0])), int(eval(a[1]))), "VTADepPop");
    } else if (s->scope == "vta.coproc_sync") {
      check(VTASynchronize(cmd, kSyncWaitCycles), "VTASynchronize");
    } else {
      throw InternalError("build: unknown call " + s->scope);
    }
  }
};

vta::DType device_type(DType t) {
  switch (t) {
    case DType::kInt8: return vta::DType::kInt8;
    case DType::kInt32: return vta::DType::kInt32;
    default: throw ScheduleError("build: arguments of type bool cannot live on the device");
  }
}

}  // namespace

Module::Module(Stmt program, std::vector<Tensor> args, std::string target)
    : program_(std::move(program)),
      args_(std::move(args)),
      target_(std::move(target)),
      kernels_(std::make_shared<std::map<const StmtNode*, void*>>()) {}

void Module::operator()(const std::vector<const DeviceTensor*>& tensors) const {
  if (tensors.size() != args_.size()) {
    throw std::invalid_argument("module: " + std::to_string(tensors.size()) + " tensors given for " +
                                std::to_string(args_.size()) + " arguments");
  }
  if (!target_.empty() && default_target() != target_) {
    throw std::invalid_argument("module: built for target " + target_ + " but the runtime runs on " + default_target() +
                                " (VTA_TARGET)");
  }
  Executor ex;
  ex.kernels = kernels_.get();
  for (size_t i = 0; i < args_.size(); ++i) {
    const Tensor& t = args_[i];
    const DeviceTensor* d = tensors[i];
    if (d == nullptr) throw std::invalid_argument("module: argument " + t->name + " is null");
    if (d->shape() != t->shape || d->dtype() != device_type(t->dtype)) {
      throw std::invalid_argument("module: the device tensor for argument " + t->name +
                                  " has another shape or element type than the argument");
    }
    ex.handles[t.get()] = d->handle();
  }
  ex.cmd = VTATLSCommandHandle();
  ex.exec(program_);
}

Module build(const Schedule& s, const std::vector<Tensor>& args, const Env& env, const BuildOptions& options) {
  LowerOptions o;
  o.env = &env;
  o.vta = true;
  o.log = options.log;
  return Module(lower(s, args, o), args, options.target);
}

}  // namespace vta::compiler
