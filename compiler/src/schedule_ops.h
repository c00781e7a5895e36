#pragma once
// The first step of lowering (internal to the compiler): the schedule as loop nests, one per stage,
// with bound inference for stages computed at a loop (schedule_ops.cc).

#include <map>
#include <vector>

#include "linear.h"
#include "vta/compiler/env.h"
#include "vta/compiler/schedule.h"

namespace vta::compiler {

/// Where the buffer of a stage computed at a loop starts, per dimension (the region's lower bound).
using RegionStarts = std::map<const TensorNode*, std::vector<Linear>>;

struct ScheduledNests {
  Stmt body;             ///< the stages' nests, intermediates allocated around them
  RegionStarts regions;  ///< intermediates that hold a region of their tensor
};

/// Every stage's loop nest in its leaf order (original axes rebuilt from the split relations,
/// reductions initialised), stages computed at a loop placed inside it with their region inferred
/// from their consumers, intermediates (tensors not in `args`) allocated in their scope. With an Env,
/// a region in an SRAM scope must fit its buffer (ScheduleError naming the stage, the scope and the sizes).
ScheduledNests schedule_ops(const Schedule& s, const std::vector<Tensor>& args, const Env* env);

/// Reads and stores of the tensors in `regions` indexed from the region's start.
Stmt rebase_regions(const Stmt& s, const RegionStarts& regions);

}  // namespace vta::compiler
