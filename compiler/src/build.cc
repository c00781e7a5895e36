// The executor of lowered programs: walks the final IR and calls the VTA runtime.

#include "vta/compiler/build.h"

#include <algorithm>
#include <set>

#include "evaluator.h"
#include "uop.h"
#include "vta/compiler/names.h"
#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/packing.h"
#include "vta/runtime/command_queue.h"
#include "vta/runtime/context.h"

namespace vta::compiler {
namespace {

/// Wait bound of the final VTASynchronize (cycles of the device), as the tutorials' programs use.
constexpr uint32_t kSyncWaitCycles = 1u << 31;

/// Runs the final program on the host: loops and sequences here, every call into the runtime.
class Executor final : public Evaluator, private StmtFunctor<void> {
 public:
  Executor(runtime::Context& ctx, std::map<const StmtNode*, void*>& kernels)
      : Evaluator("build"), ctx_(ctx), kernels_(kernels) {}
  void bind_tensor(const Tensor& t, void* handle) { handles_[t.get()] = handle; }
  /// Runs `program` on the context. Stops at the next loop iteration once `*cancel` is set.
  void run(const Stmt& program, const std::atomic<bool>* cancel) {
    cancel_ = cancel;
    const runtime::CommandQueue::Checkpoint start = ctx_.checkpoint();
    try {
      exec(program);
    } catch (...) {
      // nothing of a batch built halfway reaches the device or the next call, and a pop the previous
      // call left pending (its program's last) still meets its token
      ctx_.abandon_batch(start);
      throw;
    }
  }

 private:
  void exec(const Stmt& s) { StmtFunctor<void>::dispatch(s); }
  uint32_t u32(const Expr& e) {
    const int64_t v = eval(e);
    if (v < 0 || v > int64_t(UINT32_MAX)) {
      throw RuntimeError("build: the argument " + to_text(e) + " = " + std::to_string(v) +
                         " is not an unsigned 32-bit value");
    }
    return uint32_t(v);
  }
  int32_t i32(const Expr& e) {
    const int64_t v = eval(e);
    if (v < INT32_MIN || v > INT32_MAX) {
      throw RuntimeError("build: the argument " + to_text(e) + " = " + std::to_string(v) +
                         " is not a signed 32-bit value");
    }
    return int32_t(v);
  }
  // The first failed runtime call stops the program.
  void check(int rc, const std::string& what) const {
    if (rc != 0) throw RuntimeError(what + " failed: " + ctx_.last_error());
  }
  void* handle(const Tensor& t) const {
    auto it = handles_.find(t.get());
    if (it == handles_.end()) throw InternalError("build: no device buffer for " + t->name);
    return it->second;
  }

  void visit_for(const Stmt&, const ForNode& op) override {
    extents_[op.var.get()] = op.extent;
    for (int64_t i = 0; i < op.extent; ++i) {
      if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) {
        throw RuntimeError("build: the call was cancelled (the device server is stopping)");
      }
      bind(op.var, i);
      exec(op.body);
    }
    unbind(op.var);
  }
  void visit_seq(const Stmt&, const SeqNode& op) override {
    for (const auto& c : op.seq) exec(c);
  }
  void visit_allocate(const Stmt&, const AllocateNode& op) override { exec(op.body); }
  void visit_attr(const Stmt&, const AttrNode& op) override {
    if (op.key == attr::kCoprocUopScope) return kernel(op);
    exec(op.body);
  }
  void visit_store(const Stmt&, const StoreNode& op) override {
    throw InternalError("build: a host store to " + op.tensor->name + " in the final program");
  }
  void visit_call(const Stmt&, const CallNode& op) override {
    if (in_kernel_) return uop_call(op);
    const auto& a = op.args;
    if (op.name == intrin::kLoadBuffer2D) {
      check(ctx_.load_buffer_2d(handle(op.src), u32(a[0]), u32(a[1]), u32(a[2]), u32(a[3]), u32(a[4]), u32(a[5]),
                                u32(a[6]), u32(a[7]), u32(a[8]), u32(a[9])),
            "VTALoadBuffer2D");
    } else if (op.name == intrin::kStoreBuffer2D) {
      check(ctx_.store_buffer_2d(u32(a[0]), u32(a[1]), handle(op.dst), u32(a[2]), u32(a[3]), u32(a[4]), u32(a[5])),
            "VTAStoreBuffer2D");
    } else if (op.name == intrin::kDepPush) {
      check(ctx_.dep_push(i32(a[0]), i32(a[1])), "VTADepPush");
    } else if (op.name == intrin::kDepPop) {
      check(ctx_.dep_pop(i32(a[0]), i32(a[1])), "VTADepPop");
    } else if (op.name == intrin::kSync) {
      check(ctx_.synchronize(kSyncWaitCycles), "VTASynchronize");
    } else {
      throw InternalError("build: unknown call " + op.name);
    }
  }

  /// Inside a kernel being recorded: the micro-op loops and pushes (loops and sequences as outside).
  void uop_call(const CallNode& s) {
    if (s.name == intrin::kUopLoopBegin) {
      recording_->loop_begin(u32(s.args[0]), u32(s.args[1]), u32(s.args[2]), u32(s.args[3]));
    } else if (s.name == intrin::kUopLoopEnd) {
      recording_->loop_end();
    } else if (s.name == intrin::kUopPush) {
      const auto& a = s.args;
      recording_->push(u32(a[kUopMode]), u32(a[kUopReset]), u32(a[kUopDst]), u32(a[kUopSrc]), u32(a[kUopWgt]),
                       u32(a[kUopOpcode]), u32(a[kUopUseImm]), i32(a[kUopImm]));
    } else {
      throw InternalError("build: " + s.name + " inside a micro-op kernel");
    }
  }

  void kernel(const AttrNode& s) {
    // the kernel's free variables (bound outside it) select its instance: the closure the runtime
    // caches it by, a mixed-radix number of their values
    std::set<const ExprNode*> bound;
    for_each_stmt(s.body, [&](const Stmt& x) {
      if (const auto* loop = x->as<ForNode>()) bound.insert(loop->var.get());
      if (x->kind != StmtKind::kCall && x->kind != StmtKind::kFor && x->kind != StmtKind::kSeq) {
        throw InternalError("build: unexpected " + std::string(to_string(x->kind)) + " inside a micro-op kernel");
      }
    });
    std::vector<const ExprNode*> free;
    for_each_expr(s.body, [&](const Expr& e) {
      if (e->kind == ExprKind::kVar && !bound.count(e.get()) &&
          std::find(free.begin(), free.end(), e.get()) == free.end()) {
        free.push_back(e.get());
      }
    });
    int64_t closure = 0;
    for (const ExprNode* v : free) {
      auto e = extents_.find(v);
      if (e == extents_.end()) {
        throw InternalError("build: kernel variable " + static_cast<const VarNode*>(v)->name + " has no loop");
      }
      closure = closure * e->second + value_of(v);
      if (closure > INT32_MAX) throw RuntimeError("build: a kernel's closure does not fit 32 bits");
    }
    // (the closure as the C API's 4-byte one: the value + 1, 0 for none)
    const int64_t key = free.empty() ? 0 : int64_t{int32_t(closure)} + 1;
    const bool alu = is_const(s.value, attr::kUopKernelAlu);
    const int rc = ctx_.push_kernel(!alu, &kernels_[&s], key, [&](runtime::UopKernel& k) {
      recording_ = &k;
      in_kernel_ = true;
      struct Stop {
        Executor& ex;
        ~Stop() { ex.recording_ = nullptr, ex.in_kernel_ = false; }
      } stop{*this};
      exec(s.body);
    });
    check(rc, alu ? "VTAPushALUOp" : "VTAPushGEMMOp");
  }

  runtime::Context& ctx_;
  runtime::UopKernel* recording_ = nullptr;
  std::map<const StmtNode*, void*>& kernels_;
  std::map<const TensorNode*, void*> handles_;
  std::map<const ExprNode*, int64_t> extents_;
  bool in_kernel_ = false;
  const std::atomic<bool>* cancel_ = nullptr;
};

// Statements a run of `s` executes on the host (Module::host_steps), saturating.
uint64_t count_steps(const Stmt& s) {
  auto add = [](uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; };
  if (const auto* loop = s->as<ForNode>()) {
    const uint64_t body = add(count_steps(loop->body), 1);
    const auto n = uint64_t(loop->extent);
    return add(1, body > UINT64_MAX / n ? UINT64_MAX : body * n);
  }
  if (const auto* seq = s->as<SeqNode>()) {
    uint64_t n = 1;
    for (const auto& c : seq->seq) n = add(n, count_steps(c));
    return n;
  }
  if (s->kind == StmtKind::kAllocate || s->kind == StmtKind::kAttr) return add(1, count_steps(body_of(s)));
  return 1;  // a call or a store
}

}  // namespace

runtime::DType device_dtype(DType t) {
  switch (t) {
    case DType::kInt8: return runtime::DType::kInt8;
    case DType::kInt32: return runtime::DType::kInt32;
    case DType::kInt4: return runtime::DType::kInt4;
    case DType::kBool: break;
  }
  throw ScheduleError("build: arguments of type bool cannot live on the device");
}

size_t device_bytes(const Tensor& t) {
  return packed_bytes(size_t(t->elements()), int(runtime::dtype_bits(device_dtype(t->dtype))));
}

Module::Module(Stmt program, std::vector<Tensor> args, std::string target, std::string hardware)
    : program_(std::move(program)),
      args_(std::move(args)),
      target_(std::move(target)),
      hardware_(hardware.empty() ? build_config().bitstream_name() : std::move(hardware)),
      host_steps_(count_steps(program_)),
      kernels_(std::make_shared<std::map<const StmtNode*, void*>>()) {}

void Module::operator()(const std::vector<const runtime::DeviceTensor*>& tensors, const CallLimits& limits) const {
  if (tensors.size() != args_.size()) {
    throw std::invalid_argument("module: " + std::to_string(tensors.size()) + " tensors given for " +
                                std::to_string(args_.size()) + " arguments");
  }
  std::vector<void*> buffers;
  for (size_t i = 0; i < args_.size(); ++i) {
    const Tensor& t = args_[i];
    const runtime::DeviceTensor* d = tensors[i];
    if (d == nullptr) throw std::invalid_argument("module: argument " + t->name + " is null");
    if (d->shape() != t->shape || d->dtype() != device_dtype(t->dtype)) {
      throw std::invalid_argument("module: the device tensor for argument " + t->name +
                                  " has another shape or element type than the argument");
    }
    buffers.push_back(d->handle());
  }
  call(runtime::Context::current(), buffers, limits);
}

void Module::call(runtime::Context& ctx, const std::vector<void*>& buffers, const CallLimits& limits) const {
  if (buffers.size() != args_.size()) {
    throw std::invalid_argument("module: " + std::to_string(buffers.size()) + " buffers given for " +
                                std::to_string(args_.size()) + " arguments");
  }
  if (host_steps_ > limits.max_host_steps) {
    throw RuntimeError("module: a call would execute " + std::to_string(host_steps_) +
                       " statements on the host; the limit is " + std::to_string(limits.max_host_steps) +
                       " (CallLimits::max_host_steps)");
  }
  if (ctx.open() != 0) throw RuntimeError("module: no runtime: " + ctx.last_error());
  const std::string device_target(ctx.device().target());
  if (!target_.empty() && device_target != target_) {
    throw std::invalid_argument("module: built for target " + target_ + " but the runtime runs on " + device_target);
  }
  if (const std::string device = ctx.device().config().bitstream_name(); device != hardware_) {
    throw std::invalid_argument("module: built for hardware configuration " + hardware_ +
                                " but the runtime's device is " + device);
  }
  Executor ex(ctx, *kernels_);
  for (size_t i = 0; i < args_.size(); ++i) {
    const Tensor& t = args_[i];
    if (buffers[i] == nullptr) throw std::invalid_argument("module: argument " + t->name + " is null");
    const size_t need = device_bytes(t);
    const size_t have = runtime::buffer_bytes(buffers[i]);
    if (have < need) {
      throw std::invalid_argument("module: the buffer for argument " + t->name + " has " + std::to_string(have) +
                                  " bytes; the argument needs " + std::to_string(need));
    }
    ex.bind_tensor(t, buffers[i]);
  }
  ex.run(program_, limits.cancel);
}

Module build(const Schedule& s, const std::vector<Tensor>& args, const Env& env, const BuildOptions& options) {
  // a schedule lowered for VTA keeps each stage in DRAM or one of VTA's SRAMs (lower() alone takes
  // any scope name, as TVM's does: the reference interpreter runs it)
  for (const Stage& st : s.stages()) {
    const std::string& scope = st.scope();
    if (scope != kGlobalScope && scope != env.inp_scope && scope != env.wgt_scope && scope != env.acc_scope) {
      throw ScheduleError("build: stage " + st.name() + " is in scope '" + scope + "', which VTA does not have (" +
                          kGlobalScope + ", " + env.inp_scope + ", " + env.wgt_scope + ", " + env.acc_scope + ")");
    }
  }
  LowerOptions o;
  o.env = &env;
  o.vta = true;
  o.log = options.log;
  o.overlap_tiles = options.overlap_tiles;
  return Module(lower(s, args, o), args, options.target, env.config.bitstream_name());
}

}  // namespace vta::compiler
