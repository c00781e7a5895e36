#pragma once
// The one conversion from vta::Stats to the C struct of vta/driver_ext.h, whose members are the
// seven statistics in the order of vta::kStatFields, then the cycle count.

#include <cstddef>
#include <cstring>

#include "vta/driver/device.h"
#include "vta/driver_ext.h"

namespace vta {

static_assert(sizeof(VTAStats) == (std::size(kStatFields) + 1) * sizeof(uint64_t));
static_assert(offsetof(VTAStats, inp_load_nbytes) == 0 && offsetof(VTAStats, alu_counter) == 6 * sizeof(uint64_t) &&
              offsetof(VTAStats, cycle_count) == 7 * sizeof(uint64_t));

inline VTAStats to_c_stats(const Stats& s) {
  uint64_t words[std::size(kStatFields) + 1];
  for (size_t i = 0; i < std::size(kStatFields); ++i) words[i] = s.*kStatFields[i].member;
  words[std::size(kStatFields)] = s.cycle_count.value_or(0);
  VTAStats c;
  std::memcpy(&c, words, sizeof c);
  return c;
}

}  // namespace vta
