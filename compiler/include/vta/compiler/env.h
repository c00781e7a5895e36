#pragma once
/// \file vta/compiler/env.h
/// The target as the schedule sees it (the tutorials' `vta.get_env()`), derived from a vta::Config:
/// tensor shape factors, data types, the SRAM scopes with their capacities, and pragma names.

#include <string>

#include "vta/compiler/ir.h"
#include "vta/driver/config.h"

namespace vta::compiler {

struct Env {
  explicit Env(const Config& config);
  Config config;  // a copy: an Env may outlive the Config it was made from
  int BATCH, BLOCK_IN, BLOCK_OUT, INP_WIDTH, WGT_WIDTH, ACC_WIDTH;
  /// The inputs' (and outputs') and the weights' types: int8, or int4 at a width of 4 bits.
  DType inp_dtype, wgt_dtype, acc_dtype = DType::kInt32;
  std::string inp_scope = "local.inp_buffer", wgt_scope = "local.wgt_buffer", acc_scope = "local.acc_buffer";
  std::string dma_copy = "dma_copy", alu = "alu";
  /// Give each virtual thread's accumulator buffers a region of the accumulator of their own, the
  /// SRAM's depth / threads apart (thread t from t x depth / threads), instead of one buffer's copies
  /// side by side: with two threads, each in a half, which a compute stage that runs an ALU instruction
  /// beside a GEMM needs (vta/driver/compute_issue.h). Off by default: the tutorials' programs are the
  /// seeds'. Only when every accumulator buffer is a virtual thread's (else the usual placement).
  bool thread_banks = false;
  /// Bytes of the SRAM behind a scope; 0 for scopes that are not on the accelerator ("global").
  int64_t capacity(const std::string& scope) const;
};

}  // namespace vta::compiler
