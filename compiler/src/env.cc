#include "vta/compiler/env.h"

namespace vta::compiler {

Env::Env(const Config& c)
    : config(c),
      BATCH(c.batch()),
      BLOCK_IN(c.block_in()),
      BLOCK_OUT(c.block_out()),
      INP_WIDTH(c.inp_width()),
      WGT_WIDTH(c.wgt_width()),
      ACC_WIDTH(c.acc_width()),
      inp_dtype(c.inp_width() == 4 ? DType::kInt4 : DType::kInt8),
      wgt_dtype(c.wgt_width() == 4 ? DType::kInt4 : DType::kInt8) {}

int64_t Env::capacity(const std::string& scope) const {
  if (scope == inp_scope) return int64_t(config.inp_depth()) * config.inp_elem_bytes();
  if (scope == wgt_scope) return int64_t(config.wgt_depth()) * config.wgt_elem_bytes();
  if (scope == acc_scope) return int64_t(config.acc_depth()) * config.acc_elem_bytes();
  return 0;
}

}  // namespace vta::compiler
