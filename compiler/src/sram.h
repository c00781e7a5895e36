#pragma once
// The accelerator's on-chip buffers as the VTA passes see them (internal): which tensors are
// allocated in which SRAM scope, with which extents, and where each starts in its SRAM (in VTA
// elements: BATCH x BLOCK values). Every pass that writes an SRAM index derives it from here, so the
// DMA calls and the micro-ops agree.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vta/compiler/env.h"
#include "vta/compiler/ir.h"
#include "vta/driver/isa.h"

namespace vta::compiler {

struct SramBuffer {
  std::string scope;
  std::vector<int64_t> shape;  ///< the buffer's extents (a region of the tensor for some)
  int64_t base = 0;            ///< first VTA element in its scope's SRAM (0 for "global")
  /// VTA elements between consecutive indices of each leading extent (all but the last two): row-major,
  /// but for a virtual thread's copies under Env::thread_banks, whose first extent steps a region
  std::vector<int64_t> strides;
  int64_t elements() const;  ///< VTA elements: the product of all but the last two extents
};

class SramPlan {
 public:
  /// Collects every Allocate of `s`; buffers of one SRAM scope are placed one after another in
  /// program order (under Env::thread_banks one thread's share of each, thread by thread), but the buffers of one
  /// computed operation share their storage (a stage's own and its copies for the shorter last iterations of inexact
  /// splits, schedule_ops.cc, which run one after the other): at the first one's place, as large as the largest. A
  /// scope whose buffers together exceed its SRAM is a ScheduleError naming them. `check`: whether the capacity is
  /// enforced (the DMA step alone may print a plan that only fits once the ALU stages work in place).
  SramPlan(const Stmt& s, const Env& env, bool check = true);
  /// The placement alone, without capacities; without an Env (the interpreter's view, whose programs
  /// have no virtual thread's copies), without memory types or Env::thread_banks.
  explicit SramPlan(const Stmt& s, const Env* env = nullptr);
  /// nullptr for tensors that are not allocated in the program (DRAM arguments).
  const SramBuffer* find(const Tensor& t) const;
  std::string scope_of(const Tensor& t) const;
  const std::vector<int64_t>& shape_of(const Tensor& t) const;
  /// The memory type of an on-chip scope (INP, WGT or ACC), nothing for any other scope.
  std::optional<MemId> memory_type(const std::string& scope) const;
  /// The strides of `t`'s leading extents (SramBuffer::strides; row-major for a DRAM tensor).
  std::vector<int64_t> strides_of(const Tensor& t) const;
  /// base + the VTA element an access of `t` at `indices` touches (the leading dimensions, by strides_of).
  Expr sram_index(const Tensor& t, const std::vector<Expr>& indices) const;

 private:
  void collect(const Stmt& s, const Env* env, bool check);
  const Env* env_ = nullptr;
  std::map<const TensorNode*, SramBuffer> buffers_;
};

}  // namespace vta::compiler
