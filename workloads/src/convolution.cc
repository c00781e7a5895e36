// The 2D convolution optimization tutorial (ResNet-18 layer: 1x256x14x14 input, 256 filters 3x3,
// pad 1, stride 1, >> 8, clip to [0, 127] or [0, 7] with 4-bit outputs, 2 virtual threads) written against the VTA
// runtime API exactly as the tutorial's final lowered program calls it. Each micro-op kernel takes the virtual thread
// index as its closure, so each thread has its own kernels. Runs on the backend named by VTA_TARGET, verifies every
// output against a plain C++ reference, and prints the statistics.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/packing.h"
#include "vta/runtime.h"
#include "vta/runtime/tensor.h"
#include "vta/workloads/tutorials.h"

namespace vta::tutorials {
namespace {

int closure_int(void* signature) {
  int v;
  std::memcpy(&v, signature, sizeof v);
  return v;
}

int conv_reset(void* signature) {
  const uint32_t t = uint32_t(closure_int(signature));
  VTAUopLoopBegin(8, 98, 0, 0);
  VTAUopLoopBegin(7, 14, 0, 0);
  for (uint32_t j = 0; j < 14; ++j) VTAUopPush(0, 1, t * 784 + j, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

int conv_update(void* signature) {
  const uint32_t t = uint32_t(closure_int(signature));
  VTAUopLoopBegin(8, 98, 0, 9);
  VTAUopLoopBegin(7, 14, 16, 0);
  for (uint32_t dy = 0; dy < 3; ++dy)
    for (uint32_t dx = 0; dx < 3; ++dx)
      for (uint32_t j = 0; j < 14; ++j) {
        VTAUopPush(0, 0, t * 784 + j, t * 144 + dy * 16 + j + dx, t * 72 + dy * 3 + dx, 0, 0, 0);
      }
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

template <uint32_t kOpcode, int32_t kImm>
int alu_op(void* signature) {
  const uint32_t t = uint32_t(closure_int(signature));
  VTAUopLoopBegin(784, 1, 1, 0);
  VTAUopPush(1, 0, t * 784, t * 784, 0, kOpcode, 1, kImm);
  VTAUopLoopEnd();
  return 0;
}

// MIN with the output's largest value: 127, or 7 with 4-bit outputs.
int conv_min_output(void* signature) {
  const uint32_t t = uint32_t(closure_int(signature));
  VTAUopLoopBegin(784, 1, 1, 0);
  VTAUopPush(1, 0, t * 784, t * 784, 0, 0, 1, lane_max(build_config().out_width()));
  VTAUopLoopEnd();
  return 0;
}

// max(a, 0) as the listing writes these bounds.
int imax(int a, int b) { return std::max(a, b); }

// The tutorial's final lowered program, call for call.
int run_my_conv(void* data, void* kernel, void* res) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  static void *reset_h = nullptr, *update_h = nullptr, *shr_h = nullptr, *max_h = nullptr, *min_h = nullptr;
  VTADepPush(cmd, 3, 2);
  VTADepPush(cmd, 3, 2);
  for (int i2_outer = 0; i2_outer < 2; ++i2_outer) {
    for (int cthread = 0; cthread < 2; ++cthread) {
      VTADepPop(cmd, 3, 2);
      VTAPushGEMMOp(&reset_h, conv_reset, &cthread, 4);
      VTADepPush(cmd, 2, 1);
    }
    // Rows of padding needed above / below this half of the output rows.
    const int pad_top = imax(1 - i2_outer * 7, 0), pad_bottom = imax(i2_outer * 7 - 6, 0);
    for (int ic_outer = 0; ic_outer < 16; ++ic_outer) {
      const int data_offset = ic_outer * 196 + i2_outer * 98 + pad_top * 14 - 14;
      const uint32_t rows = uint32_t(9 - pad_top - pad_bottom);
      VTADepPop(cmd, 2, 1);
      VTALoadBuffer2D(cmd, data, uint32_t(data_offset), 14, rows, 14, 1, uint32_t(pad_top), 1, uint32_t(pad_bottom), 0,
                      2);
      VTALoadBuffer2D(cmd, kernel, uint32_t(ic_outer * 9), 9, 8, 144, 0, 0, 0, 0, 0, 1);
      VTADepPush(cmd, 1, 2);
      VTADepPop(cmd, 2, 1);
      VTALoadBuffer2D(cmd, data, uint32_t(data_offset), 14, rows, 14, 1, uint32_t(pad_top), 1, uint32_t(pad_bottom),
                      144, 2);
      VTALoadBuffer2D(cmd, kernel, uint32_t(ic_outer * 9 + 1152), 9, 8, 144, 0, 0, 0, 0, 72, 1);
      VTADepPush(cmd, 1, 2);
      for (int cthread = 0; cthread < 2; ++cthread) {
        VTADepPop(cmd, 1, 2);
        VTAPushGEMMOp(&update_h, conv_update, &cthread, 4);
        VTADepPush(cmd, 2, 1);
      }
    }
    VTADepPop(cmd, 2, 1);
    VTADepPop(cmd, 2, 1);
    for (int cthread = 0; cthread < 2; ++cthread) {
      VTAPushALUOp(&shr_h, alu_op<3, 8>, &cthread, 4);     // SHR by 8
      VTAPushALUOp(&max_h, alu_op<1, 0>, &cthread, 4);     // MAX with 0
      VTAPushALUOp(&min_h, conv_min_output, &cthread, 4);  // MIN with 127
      VTADepPush(cmd, 2, 3);
    }
    for (int cthread = 0; cthread < 2; ++cthread) {
      VTADepPop(cmd, 2, 3);
      for (uint32_t i1 = 0; i1 < 8; ++i1)
        for (uint32_t i2 = 0; i2 < 7; ++i2)
          for (uint32_t i3 = 0; i3 < 14; ++i3) {
            VTAStoreBuffer2D(cmd, uint32_t(cthread) * 784 + i1 * 98 + i2 * 14 + i3, 4, res,
                             uint32_t(cthread) * 1568 + i1 * 196 + uint32_t(i2_outer) * 98 + i2 * 14 + i3, 1, 1, 1);
          }
      VTADepPush(cmd, 3, 2);
    }
  }
  VTADepPop(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
  return VTASynchronize(cmd, 1u << 31);
}

}  // namespace

Result convolution(uint32_t seed) {
  Result r;
  if (!written_for_this_build(r)) return r;
  constexpr int kC = 256, kO = 256, kH = 14, kW = 14, kK = 3, kPad = 1, kStride = 1;
  const Config& cfg = build_config();
  const auto [x, w] =
      random_operands(seed, size_t(kC) * kH * kW, size_t(kO) * kC * kK * kK, cfg.inp_width(), cfg.wgt_width());

  using vta::runtime::dtype_of_width;
  vta::runtime::DeviceTensor data({1, 16, 14, 14, 1, 16}, dtype_of_width(cfg.inp_width()), "data");
  vta::runtime::DeviceTensor kernel({16, 16, 3, 3, 16, 16}, dtype_of_width(cfg.wgt_width()), "kernel");
  vta::runtime::DeviceTensor res({1, 16, 14, 14, 1, 16}, dtype_of_width(cfg.out_width()), "res");
  data.copy_from(vta::runtime::pack_nchw(x, 1, kC, kH, kW, 1, 16));
  kernel.copy_from(vta::runtime::pack_oihw(w, kO, kC, kK, kK, 16, 16));

  vta::runtime::clear_runtime_stats();
  if (run_my_conv(data.handle(), kernel.handle(), res.handle()) != 0) {
    r.error = VTARuntimeGetLastError();
    return r;
  }
  r.ran = true;
  std::vector<int8_t> got(res.elements());
  res.copy_to(got);
  const auto want = vta::runtime::shift_clip(
      vta::runtime::conv2d_reference(x, w, 1, kC, kH, kW, kO, kK, kK, kPad, kStride), 8, 0, lane_max(cfg.out_width()));
  const auto got_nchw = vta::runtime::unpack_nchw(got, 1, kO, kH, kW, 1, 16);
  r.compare(got_nchw, want);

  r.stats = vta::runtime::runtime_stats();
  return r;
}

Stats convolution_seed_stats() {
  return at_build_widths(Stats{114688, 1179648, 0, 1144, 50176, 451584, 9408, std::nullopt, std::nullopt});
}

}  // namespace vta::tutorials
