#pragma once
// The one conversion from vta::Stats to the C struct of vta/driver_ext.h.

#include "vta/device.h"
#include "vta/driver_ext.h"

namespace vta {

inline VTAStats to_c_stats(const Stats& s) {
  return VTAStats{s.inp_load_nbytes, s.wgt_load_nbytes, s.acc_load_nbytes, s.uop_load_nbytes,
                  s.out_store_nbytes, s.gemm_counter,    s.alu_counter,     s.cycle_count.value_or(0)};
}

}  // namespace vta
