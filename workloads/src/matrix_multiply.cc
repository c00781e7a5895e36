// The matrix-multiply blocking tutorial (1x1024 input, 1024x1024 weights, tiles of 256 channels,
// >> 8, clip to [0, 127], or [0, 7] with 4-bit outputs) written against the VTA runtime API exactly as the tutorial's
// final lowered program calls it: the same loops, DMA calls, micro-op kernels and token pushes and pops. Runs on the
// backend named by VTA_TARGET, verifies every output against a plain C++ reference, and prints the
// seven statistics. With VTA_TRACE_CALLS=<file> the runtime writes the call trace.

#include <cstdio>
#include <vector>

#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/packing.h"
#include "vta/runtime.h"
#include "vta/runtime/tensor.h"
#include "vta/workloads/tutorials.h"

namespace vta::tutorials {
namespace {

// Micro-op kernels, one function per call site of the lowered program.
int gemm_reset(void*) {
  VTAUopLoopBegin(16, 1, 0, 0);
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  return 0;
}
int gemm_update(void*) {
  VTAUopLoopBegin(16, 1, 0, 16);
  VTAUopLoopBegin(16, 0, 1, 1);
  VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}
// The three ALU kernels: the same loop, one micro-op with an immediate; they differ by the ALU opcode
// (MIN 0, MAX 1, SHR 3) and the immediate.
template <int kOpcode, int kImm>
int alu_imm(void*) {
  VTAUopLoopBegin(16, 1, 1, 0);
  VTAUopPush(1, 0, 0, 0, 0, kOpcode, 1, kImm);
  VTAUopLoopEnd();
  return 0;
}
// MIN with the output's largest value: 127, or 7 with 4-bit outputs.
int matmul_min_output(void*) {
  VTAUopLoopBegin(16, 1, 1, 0);
  VTAUopPush(1, 0, 0, 0, 0, 0, 1, lane_max(build_config().out_width()));
  VTAUopLoopEnd();
  return 0;
}

// The tutorial's final lowered program, call for call.
int run_my_gemm(void* data, void* weight, void* res) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  static void *reset_h = nullptr, *update_h = nullptr, *shr_h = nullptr, *max_h = nullptr, *min_h = nullptr;
  VTADepPush(cmd, 3, 2);
  for (int i1_outer = 0; i1_outer < 4; ++i1_outer) {
    VTADepPop(cmd, 3, 2);
    VTAPushGEMMOp(&reset_h, gemm_reset, nullptr, 0);
    VTADepPush(cmd, 2, 1);
    for (int ic_outer = 0; ic_outer < 4; ++ic_outer) {
      const int cse_var_1 = ic_outer * 16;
      VTADepPop(cmd, 2, 1);
      VTALoadBuffer2D(cmd, data, cse_var_1, 16, 1, 16, 0, 0, 0, 0, 0, 2);
      VTALoadBuffer2D(cmd, weight, i1_outer * 1024 + cse_var_1, 16, 16, 64, 0, 0, 0, 0, 0, 1);
      VTADepPush(cmd, 1, 2);
      VTADepPop(cmd, 1, 2);
      VTAPushGEMMOp(&update_h, gemm_update, nullptr, 0);
      VTADepPush(cmd, 2, 1);
    }
    VTADepPop(cmd, 2, 1);
    VTAPushALUOp(&shr_h, alu_imm<3, 8>, nullptr, 0);      // SHR by 8
    VTAPushALUOp(&max_h, alu_imm<1, 0>, nullptr, 0);      // MAX with 0
    VTAPushALUOp(&min_h, matmul_min_output, nullptr, 0);  // MIN with 127
    VTADepPush(cmd, 2, 3);
    VTADepPop(cmd, 2, 3);
    for (int i1_inner = 0; i1_inner < 16; ++i1_inner) {
      VTAStoreBuffer2D(cmd, i1_inner, 4, res, i1_outer * 16 + i1_inner, 1, 1, 1);
    }
    VTADepPush(cmd, 3, 2);
  }
  const int rc = VTASynchronize(cmd, 1u << 31);
  VTADepPop(cmd, 3, 2);
  return rc;
}

}  // namespace

Result matrix_multiply(uint32_t seed) {
  Result r;
  if (!written_for_this_build(r)) return r;
  constexpr int kBatch = 1, kIn = 1024, kOut = 1024;
  const Config& cfg = build_config();
  const auto [a, w] = random_operands(seed, kBatch * kIn, size_t(kOut) * kIn, cfg.inp_width(), cfg.wgt_width());

  using vta::runtime::dtype_of_width;
  vta::runtime::DeviceTensor data({1, 64, 1, 16}, dtype_of_width(cfg.inp_width()), "data");
  vta::runtime::DeviceTensor weight({64, 64, 16, 16}, dtype_of_width(cfg.wgt_width()), "weight");
  vta::runtime::DeviceTensor res({1, 64, 1, 16}, dtype_of_width(cfg.out_width()), "res");
  data.copy_from(vta::runtime::pack_matrix(a, kBatch, kIn, 1, 16));
  weight.copy_from(vta::runtime::pack_matrix(w, kOut, kIn, 16, 16));

  vta::runtime::clear_runtime_stats();
  if (run_my_gemm(data.handle(), weight.handle(), res.handle()) != 0) {
    r.error = VTARuntimeGetLastError();
    return r;
  }
  r.ran = true;
  std::vector<int8_t> got(kBatch * kOut);
  res.copy_to(got);
  const auto want =
      vta::runtime::shift_clip(vta::runtime::gemm_reference(a, w, kBatch, kIn, kOut), 8, 0, lane_max(cfg.out_width()));
  const auto got_flat = vta::runtime::unpack_matrix(got, kBatch, kOut, 1, 16);
  r.compare(got_flat, want);

  r.stats = vta::runtime::runtime_stats();
  return r;
}

Stats matrix_multiply_seed_stats() {
  return at_build_widths(Stats{4096, 1048576, 0, 20, 1024, 4096, 192, std::nullopt, std::nullopt});
}

}  // namespace vta::tutorials
