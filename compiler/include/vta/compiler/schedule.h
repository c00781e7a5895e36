#pragma once
/// \file vta/compiler/schedule.h
/// Schedules: one stage per compute operation, with the primitives that change its loop nest
/// (split by factor or nparts, reorder) and its storage scope. Each primitive checks its arguments and
/// throws ScheduleError naming the stage, the axis and the reason.

#include <array>
#include <map>
#include <utility>

#include "vta/compiler/ir.h"

namespace vta::compiler {

/// parent = outer * factor + inner
struct SplitRelation {
  IterVar parent, outer, inner;
  int64_t factor;
};

class Stage {
 public:
  explicit Stage(Operation op);
  const Operation& op() const { return op_; }
  const std::string& name() const { return op_->name; }
  /// The loops of this stage, outermost first.
  const std::vector<IterVar>& leaves() const { return leaves_; }
  const std::vector<SplitRelation>& splits() const { return splits_; }
  const std::string& scope() const { return scope_; }

  /// Splits `parent` (a current leaf) into (outer, inner) with inner extent `factor`. A factor that
  /// does not divide the extent is allowed (as TVM's): the last outer iteration is shorter, lowered as
  /// the whole iterations' loop followed by the rest once.
  std::pair<IterVar, IterVar> split(const IterVar& parent, int64_t factor);
  /// Splits `parent` into `nparts` outer iterations: inner extent ceil(extent / nparts), as TVM's.
  std::pair<IterVar, IterVar> split_nparts(const IterVar& parent, int64_t nparts);
  /// Splits `x` by `x_factor` and `y` by `y_factor` and orders them (x.outer, y.outer, x.inner,
  /// y.inner), which it returns (te tile).
  std::array<IterVar, 4> tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor);
  /// Reorders the given leaves among the positions they occupy (te reorder).
  void reorder(const std::vector<IterVar>& order);
  /// The storage scope of the stage's output ("global" by default).
  void set_scope(const std::string& scope);
  /// Computes this stage inside `parent`'s loop `axis`: at each iteration of the loops outside and
  /// including `axis`, only the region of this stage's output its consumers read there (bound
  /// inference, rectangular regions of affine indices).
  void compute_at(const Stage& parent, const IterVar& axis);
  /// Annotates loop `axis` (a leaf) with a pragma: "dma_copy", "alu", or the mock forms
  /// "skip_dma_copy" and "skip_alu" that make the nest do nothing (te pragma; names.h kPragmas).
  void pragma(const IterVar& axis, const std::string& name);
  /// Marks loop `axis` and the loops inside it as one call of the named intrinsic: "gemm", or
  /// "skip_gemm", the mock GEMM that does nothing.
  void tensorize(const IterVar& axis, const std::string& intrinsic);
  /// Binds loop `axis` to a thread kind; only "cthread" (virtual threads) is supported.
  void bind(const IterVar& axis, const std::string& thread);
  /// Annotations per leaf variable: {"pragma_dma_copy", "tensorize_gemm", "virtual_thread", ...}.
  const std::vector<std::pair<Var, std::string>>& annotations() const { return annotations_; }
  /// The stage this one is computed inside (nullptr: at the root) and the loop variable.
  const OperationNode* attach_op() const { return attach_op_; }
  const Var& attach_var() const { return attach_var_; }

 private:
  size_t leaf_index(const IterVar& iv, const char* primitive) const;
  Operation op_;
  std::vector<IterVar> leaves_;
  std::vector<SplitRelation> splits_;
  std::string scope_ = "global";
  std::vector<std::pair<Var, std::string>> annotations_;
  const OperationNode* attach_op_ = nullptr;
  Var attach_var_;
};

class Schedule {
 public:
  /// Stages in dependency order (producers first) for every compute reachable from `outputs`.
  explicit Schedule(const std::vector<Tensor>& outputs);
  Stage& operator[](const Tensor& t);
  const std::vector<Stage>& stages() const { return stages_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }

 private:
  std::vector<Stage> stages_;
  std::vector<Tensor> outputs_;
};

Schedule create_schedule(const Tensor& output);

}  // namespace vta::compiler
