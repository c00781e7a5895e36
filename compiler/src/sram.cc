#include "sram.h"

#include <algorithm>

#include "vta/compiler/names.h"
#include "vta/compiler/pass.h"
#include "vta/compiler/visitor.h"
#include "vta/driver/program.h"

namespace vta::compiler {

int64_t SramBuffer::elements() const {
  int64_t n = 1;
  for (size_t d = 0; d + 2 < shape.size(); ++d) n *= shape[d];
  return n;
}

SramPlan::SramPlan(const Stmt& s, const Env& env, bool check) : env_(&env) { collect(s, &env, check); }

SramPlan::SramPlan(const Stmt& s, const Env* env) : env_(env) { collect(s, env, false); }

void SramPlan::collect(const Stmt& s, const Env* env, bool check) {
  std::vector<const AllocateNode*> allocations;
  for_each_stmt(s, [&](const Stmt& x) {
    if (const auto* a = x->as<AllocateNode>()) allocations.push_back(a);
  });
  // the buffers of one computed operation (a stage and its copies) share their storage: the largest
  auto shared = [](const AllocateNode& a) {
    const Operation& op = a.tensor->op;
    return op != nullptr && op->kind == OperationNode::Kind::kCompute ? op.get() : nullptr;
  };
  std::map<std::pair<std::string, const OperationNode*>, int64_t> largest;
  for (const AllocateNode* a : allocations) {
    if (shared(*a) == nullptr) continue;
    int64_t& n = largest[{a->scope, shared(*a)}];
    n = std::max(n, SramBuffer{a->scope, a->shape, 0, {}}.elements());
  }
  // Env::thread_banks: the scopes whose buffers are all one virtual thread loop's copies, placed thread
  // by thread, each thread's region `region` elements from the previous one
  std::map<std::string, int64_t> threads_of;  // the scope's thread count, or -1: not all copies
  for (const AllocateNode* a : allocations) {
    if (a->scope == kGlobalScope) continue;
    const int64_t t = a->tensor->thread_copies;
    auto [it, fresh] = threads_of.emplace(a->scope, t > 1 ? t : -1);
    if (!fresh && it->second != t) it->second = -1;
  }
  std::map<std::string, int64_t> region;
  if (env != nullptr && env->thread_banks) {
    for (const auto& [scope, threads] : threads_of) {
      if (threads > 1 && memory_type(scope) == MemId::kAcc) {
        region[scope] = int64_t(vta::sram_depth(env->config, MemId::kAcc)) / threads;
      }
    }
  }
  std::map<std::string, int64_t> next;
  std::map<std::string, std::string> names;
  std::map<std::pair<std::string, const OperationNode*>, int64_t> placed;
  for (const AllocateNode* a : allocations) {
    SramBuffer b{a->scope, a->shape, 0, row_major_strides({a->shape.begin(), a->shape.end() - 2})};
    if (a->scope != kGlobalScope) {  // one bump allocator per on-chip scope
      const auto key = std::make_pair(a->scope, shared(*a));
      const int64_t size = key.second != nullptr ? largest.at(key) : b.elements();
      // with thread regions, the allocator counts one thread's share
      const bool banked = region.count(a->scope) != 0;
      if (key.second != nullptr && placed.count(key) != 0) {
        b.base = placed.at(key);
      } else {
        b.base = next[a->scope];
        next[a->scope] += banked ? size / a->tensor->thread_copies : size;
        names[a->scope] += (names[a->scope].empty() ? "" : ", ") + a->tensor->name;
        if (key.second != nullptr) placed[key] = b.base;
      }
      if (banked) b.strides[0] = region.at(a->scope);
    }
    buffers_[a->tensor.get()] = b;
  }
  // a thread's share past its region: the usual placement (whose capacity check names the buffers)
  for (const auto& [scope, r] : region) {
    if (next[scope] > r) {
      Env plain = *env;
      plain.thread_banks = false;
      buffers_.clear();
      collect(s, &plain, check);
      return;
    }
    next[scope] *= threads_of.at(scope);  // (for the check below: all threads' shares)
  }
  for (const auto& [scope, used] : next) {
    const auto mt = memory_type(scope);
    if (!mt || !check) continue;
    const int64_t depth = vta::sram_depth(env->config, *mt);
    if (used > depth) {
      throw ScheduleError("the buffers of " + scope + " (" + names[scope] + ") need " + std::to_string(used) +
                          " elements together; the SRAM holds " + std::to_string(depth) +
                          " (block the computation more finely or use fewer virtual threads)");
    }
  }
}

const SramBuffer* SramPlan::find(const Tensor& t) const {
  auto it = buffers_.find(t.get());
  return it == buffers_.end() ? nullptr : &it->second;
}

std::string SramPlan::scope_of(const Tensor& t) const {
  const SramBuffer* b = find(t);
  return b == nullptr ? kGlobalScope : b->scope;
}

const std::vector<int64_t>& SramPlan::shape_of(const Tensor& t) const {
  const SramBuffer* b = find(t);
  return b == nullptr ? t->shape : b->shape;
}

std::optional<MemId> SramPlan::memory_type(const std::string& scope) const {
  if (env_ == nullptr) return std::nullopt;
  const Env& env = *env_;
  if (scope == env.inp_scope) return MemId::kInp;
  if (scope == env.wgt_scope) return MemId::kWgt;
  if (scope == env.acc_scope) return MemId::kAcc;
  return std::nullopt;
}

std::vector<int64_t> SramPlan::strides_of(const Tensor& t) const {
  const SramBuffer* b = find(t);
  if (b != nullptr) return b->strides;
  return row_major_strides({t->shape.begin(), t->shape.end() - 2});
}

Expr SramPlan::sram_index(const Tensor& t, const std::vector<Expr>& indices) const {
  const std::vector<int64_t> stride = strides_of(t);
  Expr off = make_int(0);
  for (size_t d = 0; d < stride.size(); ++d) off = off + indices[d] * stride[d];  // outermost first
  const SramBuffer* b = find(t);
  if (b != nullptr && b->base != 0) off = make_int(b->base) + off;
  return simplify(off);
}

}  // namespace vta::compiler
