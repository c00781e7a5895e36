#include "sram.h"

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
  std::map<std::string, int64_t> next;
  std::map<std::string, std::string> names;
  for_each_stmt(s, [&](const Stmt& x) {
    const auto* a = x->as<AllocateNode>();
    if (a == nullptr) return;
    SramBuffer b{a->scope, a->shape, 0};
    if (a->scope != kGlobalScope) {  // one bump allocator per on-chip scope
      b.base = next[a->scope];
      next[a->scope] += b.elements();
      names[a->scope] += (names[a->scope].empty() ? "" : ", ") + a->tensor->name;
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
