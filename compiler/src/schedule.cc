#include "vta/compiler/schedule.h"

#include <algorithm>
#include <array>
#include <functional>
#include <set>

#include "vta/compiler/names.h"

namespace vta::compiler {

Stage::Stage(Operation op) : op_(std::move(op)) {
  leaves_ = op_->axis;
  leaves_.insert(leaves_.end(), op_->reduce_axis.begin(), op_->reduce_axis.end());
}

size_t Stage::leaf_index(const IterVar& iv, const char* primitive) const {
  for (size_t i = 0; i < leaves_.size(); ++i) {
    if (leaves_[i].var == iv.var) return i;
  }
  throw ScheduleError(std::string(primitive) + " on stage " + name() + ": axis " + (iv.var ? iv.var->name : "<null>") +
                      " is not a loop of this stage (already split, or of another stage)");
}

std::pair<IterVar, IterVar> Stage::split(const IterVar& parent, int64_t factor) {
  const size_t at = leaf_index(parent, "split");
  const IterVar& p = leaves_[at];
  if (factor <= 0) {
    throw ScheduleError("split on stage " + name() + ", axis " + p.var->name + ": factor " + std::to_string(factor) +
                        " must be positive");
  }
  // (a factor that does not divide the extent leaves a shorter last iteration: lowering emits the
  // whole iterations as a loop, then the rest once, schedule_ops.cc)
  IterVar outer{make_var(p.var->name + ".outer"), (p.extent + factor - 1) / factor, p.reduce};
  IterVar inner{make_var(p.var->name + ".inner"), factor, p.reduce};
  splits_.push_back({p, outer, inner, factor});
  leaves_[at] = outer;
  leaves_.insert(leaves_.begin() + std::ptrdiff_t(at) + 1, inner);
  return {outer, inner};
}

std::pair<IterVar, IterVar> Stage::split_nparts(const IterVar& parent, int64_t nparts) {
  const size_t at = leaf_index(parent, "split");
  const IterVar& p = leaves_[at];
  if (nparts <= 0) {
    throw ScheduleError("split on stage " + name() + ", axis " + p.var->name + ": nparts " + std::to_string(nparts) +
                        " must be positive");
  }
  // (as TVM: the inner extent is the extent divided by nparts, rounded up)
  return split(parent, (p.extent + nparts - 1) / nparts);
}

std::array<IterVar, 4> Stage::tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor) {
  if (x.var == y.var) throw ScheduleError("tile on stage " + name() + ": axis " + x.var->name + " is given twice");
  (void)leaf_index(y, "tile");  // (both are checked before anything changes)
  const auto [xo, xi] = split(x, x_factor);
  const auto [yo, yi] = split(y, y_factor);
  reorder({xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

void Stage::reorder(const std::vector<IterVar>& order) {
  std::vector<size_t> positions;
  std::set<const VarNode*> seen;
  for (const auto& iv : order) {
    positions.push_back(leaf_index(iv, "reorder"));
    if (!seen.insert(iv.var.get()).second) {
      throw ScheduleError("reorder on stage " + name() + ": axis " + iv.var->name + " is given twice");
    }
  }
  std::vector<size_t> slots = positions;
  std::sort(slots.begin(), slots.end());
  std::vector<IterVar> next = leaves_;
  for (size_t k = 0; k < order.size(); ++k) next[slots[k]] = leaves_[positions[k]];
  leaves_ = std::move(next);
}

void Stage::set_scope(const std::string& scope) {
  if (scope.empty()) throw ScheduleError("set_scope on stage " + name() + ": empty scope");
  scope_ = scope;
}

void Stage::pragma(const IterVar& axis, const std::string& name) {
  (void)leaf_index(axis, "pragma");
  if (std::find(std::begin(kPragmas), std::end(kPragmas), name) == std::end(kPragmas)) {
    throw ScheduleError("pragma on stage " + this->name() + ", axis " + axis.var->name + ": unknown pragma \"" + name +
                        "\" (VTA's are dma_copy and alu, and their mock forms skip_dma_copy and skip_alu)");
  }
  annotations_.push_back({axis.var, attr::kPragmaPrefix + name});
}

void Stage::tensorize(const IterVar& axis, const std::string& intrinsic) {
  (void)leaf_index(axis, "tensorize");
  if (intrinsic != kIntrinsicGemm && intrinsic != kIntrinsicSkipGemm) {
    throw ScheduleError("tensorize on stage " + name() + ", axis " + axis.var->name + ": unknown intrinsic \"" +
                        intrinsic + "\" (the VTA intrinsic is \"gemm\", and its mock form \"skip_gemm\")");
  }
  annotations_.push_back({axis.var, attr::kTensorizePrefix + intrinsic});
}

void Stage::bind(const IterVar& axis, const std::string& thread) {
  (void)leaf_index(axis, "bind");
  if (thread != "cthread") {
    throw ScheduleError("bind on stage " + name() + ", axis " + axis.var->name + ": thread \"" + thread +
                        "\" is not supported (VTA has virtual threads: \"cthread\")");
  }
  annotations_.push_back({axis.var, "virtual_thread"});
}

void Stage::compute_at(const Stage& parent, const IterVar& axis) {
  if (parent.op() == op_)
    throw ScheduleError("compute_at on stage " + name() + ": a stage cannot be computed inside itself");
  (void)parent.leaf_index(axis, "compute_at");
  attach_op_ = parent.op().get();
  attach_var_ = axis.var;
}

Schedule::Schedule(const std::vector<Tensor>& outputs) : outputs_(outputs) {
  // post-order over the producers: every stage after the stages it reads
  std::set<const OperationNode*> visited;
  std::function<void(const Tensor&)> visit = [&](const Tensor& t) {
    if (t->op->kind != OperationNode::Kind::kCompute || !visited.insert(t->op.get()).second) return;
    for (const auto& in : t->op->inputs) visit(in);
    stages_.emplace_back(t->op);
  };
  for (const auto& t : outputs) visit(t);
}

Stage& Schedule::operator[](const Tensor& t) {
  for (auto& s : stages_) {
    if (s.op() == t->op) return s;
  }
  throw ScheduleError("tensor " + t->name +
                      " has no stage in this schedule (a placeholder, or not an input of the output)");
}

Schedule create_schedule(const Tensor& output) { return Schedule({output}); }

}  // namespace vta::compiler
