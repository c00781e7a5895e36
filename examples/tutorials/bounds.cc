#include "tutorials.h"

namespace vta::tutorials {

CycleBounds cycle_bounds(const Stats& s, int bus_width_bits) {
  const double bytes = double(s.inp_load_nbytes + s.wgt_load_nbytes + s.acc_load_nbytes + s.uop_load_nbytes +
                              s.out_store_nbytes);
  return {double(s.gemm_counter + s.alu_counter), bytes / (bus_width_bits / 8.0)};
}

}  // namespace vta::tutorials
