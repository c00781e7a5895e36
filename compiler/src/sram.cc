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

SramPlan::SramPlan(const Stmt& s) { collect(s, nullptr, false); }

void SramPlan::collect(const Stmt& s, const Env* env, bool check) {
  // the buffers of one computed operation (a stage and its copies) share their storage: the largest
  std::map<std::pair<std::string, const OperationNode*>, int64_t> largest;
  auto shared = [](const AllocateNode& a) {
    const Operation& op = a.tensor->op;
    return op != nullptr && op->kind == OperationNode::Kind::kCompute ? op.get() : nullptr;
  };
  for_each_stmt(s, [&](const Stmt& x) {
    const auto* a = x->as<AllocateNode>();
    if (a == nullptr || shared(*a) == nullptr) return;
    int64_t& n = largest[{a->scope, shared(*a)}];
    n = std::max(n, SramBuffer{a->scope, a->shape, 0}.elements());
  });
  std::map<std::string, int64_t> next;
  std::map<std::string, std::string> names;
  std::map<std::pair<std::string, const OperationNode*>, int64_t> placed;
  for_each_stmt(s, [&](const Stmt& x) {
    const auto* a = x->as<AllocateNode>();
    if (a == nullptr) return;
    SramBuffer b{a->scope, a->shape, 0};
    if (a->scope != kGlobalScope) {  // one bump allocator per on-chip scope
      const auto key = std::make_pair(a->scope, shared(*a));
      if (key.second != nullptr && placed.count(key) != 0) {
        b.base = placed.at(key);
      } else {
        b.base = next[a->scope];
        next[a->scope] += key.second != nullptr ? largest.at(key) : b.elements();
        names[a->scope] += (names[a->scope].empty() ? "" : ", ") + a->tensor->name;
        if (key.second != nullptr) placed[key] = b.base;
      }
    }
    buffers_[a->tensor.get()] = b;
  });
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

Expr SramPlan::sram_index(const Tensor& t, const std::vector<Expr>& indices) const {
  const std::vector<int64_t>& shape = shape_of(t);
  const std::vector<int64_t> stride = row_major_strides({shape.begin(), shape.end() - 2});
  Expr off = make_int(0);
  for (size_t d = 0; d + 2 < shape.size(); ++d) off = off + indices[d] * stride[d];  // outermost first
  const SramBuffer* b = find(t);
  if (b != nullptr && b->base != 0) off = make_int(b->base) + off;
  return simplify(off);
}

}  // namespace vta::compiler
