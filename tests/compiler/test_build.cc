// The compiler's generality: schedules of several shapes and tilings are compiled, run on the
// runtime's device (the fsim by default) and every output is compared with a plain C++ reference.
// GEMMs of several sizes, tile factors, 1 or 2 virtual threads, with and without the shift/clip
// epilogue, BATCH > 1 where the configuration has it; every ResNet-18 convolution shape; a pure ALU
// workload; and the errors a user gets for schedules the accelerator cannot run.

#include <gtest/gtest.h>

#include <random>

#include "compiled.h"
#include "vta/build_config.h"
#include "vta/compiler/build.h"
#include "vta/compiler/te.h"
#include "vta/tensor.h"

namespace vta::tutorials {
namespace {

std::string describe(const MatmulShape& s) {
  return std::to_string(s.batch) + "x" + std::to_string(s.in_channels) + " x " + std::to_string(s.in_channels) + "x" +
         std::to_string(s.out_channels) + " tiles b" + std::to_string(s.b_block) + " o" + std::to_string(s.o_block) +
         " i" + std::to_string(s.i_block) + ", " + std::to_string(s.virtual_threads) + " threads" +
         (s.epilogue ? ", epilogue" : "");
}

TEST(CompiledGemm, SizesTilesThreadsAndEpilogues) {
  const int batch = vta::build_config().batch(), block = vta::build_config().block_in();
  std::vector<MatmulShape> shapes;
  auto add = [&](int64_t b, int64_t in, int64_t out, int64_t bb, int64_t ob, int64_t ib, int64_t vt, bool epi) {
    MatmulShape s;
    s.batch = b * batch, s.in_channels = in * block, s.out_channels = out * block;
    s.b_block = bb, s.o_block = ob, s.i_block = ib, s.virtual_threads = vt, s.epilogue = epi;
    shapes.push_back(s);
  };
  add(1, 16, 16, 1, 4, 4, 1, true);    // square, small tiles
  add(1, 32, 8, 1, 2, 8, 2, true);     // wide input, two threads
  add(1, 8, 32, 1, 8, 2, 2, false);    // wide output, no epilogue
  add(1, 4, 4, 1, 4, 4, 1, false);     // one tile
  add(2, 16, 16, 2, 4, 4, 1, true);    // several batch blocks per tile
  add(4, 8, 16, 1, 4, 8, 2, true);     // batch blocks as outer loop, two threads
  for (const auto& s : shapes) {
    Result r;
    try {
      r = compiled_matrix_multiply(11, nullptr, s);
    } catch (const std::exception& e) {
      ADD_FAILURE() << describe(s) << ": " << e.what();
      continue;
    }
    EXPECT_TRUE(r.ran) << describe(s) << ": " << r.error;
    EXPECT_EQ(r.mismatches, 0u) << describe(s);
    EXPECT_EQ(r.outputs, size_t(s.batch * s.out_channels)) << describe(s);
    EXPECT_EQ(r.stats.gemm_counter, uint64_t(s.batch / batch * s.out_channels / block * s.in_channels / block))
        << describe(s) << ": one GEMM micro-op per (batch, output, input) block";
  }
}

struct ResNetLayer {
  int64_t size, in, out, kernel, pad, stride;
  int64_t oc_block, h_block, w_block, ic_block;
};

// The ResNet-18 convolutions VTA runs (all but the first 7x7 layer), with tilings that fit the
// default SRAMs with two virtual threads.
const ResNetLayer kResNet18[] = {
    {56, 64, 64, 3, 1, 1, 2, 4, 14, 1},    {56, 64, 128, 3, 1, 2, 2, 4, 14, 1}, {56, 64, 128, 1, 0, 2, 2, 4, 14, 1},
    {28, 128, 128, 3, 1, 1, 2, 7, 14, 2},  {28, 128, 256, 3, 1, 2, 4, 7, 14, 1}, {28, 128, 256, 1, 0, 2, 4, 7, 14, 2},
    {14, 256, 256, 3, 1, 1, 8, 7, 14, 1},  {14, 256, 512, 3, 1, 2, 8, 7, 7, 1},  {14, 256, 512, 1, 0, 2, 8, 7, 7, 2},
    {7, 512, 512, 3, 1, 1, 8, 7, 7, 1},
};

TEST(CompiledConv2d, EveryResNet18Shape) {
  if (vta::build_config().batch() != 1 || vta::build_config().block_in() != 16) GTEST_SKIP() << "tiles for 1x16";
  for (const auto& l : kResNet18) {
    ConvShape s;
    s.height = s.width = l.size, s.in_channels = l.in, s.out_channels = l.out;
    s.kernel = l.kernel, s.pad = l.pad, s.stride = l.stride;
    s.oc_block = l.oc_block, s.h_block = l.h_block, s.w_block = l.w_block, s.ic_block = l.ic_block;
    const std::string what = std::to_string(l.size) + "x" + std::to_string(l.size) + " " + std::to_string(l.in) + "->" +
                             std::to_string(l.out) + " k" + std::to_string(l.kernel) + " s" + std::to_string(l.stride);
    Result r;
    try {
      r = compiled_convolution(5, nullptr, s);
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": " << e.what();
      continue;
    }
    EXPECT_TRUE(r.ran) << what << ": " << r.error;
    EXPECT_EQ(r.mismatches, 0u) << what;
    const int64_t oh = (l.size + 2 * l.pad - l.kernel) / l.stride + 1;
    EXPECT_EQ(r.outputs, size_t(oh * oh * l.out)) << what;
    EXPECT_EQ(r.stats.gemm_counter, uint64_t(oh * oh * (l.out / 16) * (l.in / 16) * l.kernel * l.kernel)) << what;
  }
}

TEST(CompiledConv2d, OneVirtualThreadAndOtherTiles) {
  if (vta::build_config().batch() != 1 || vta::build_config().block_in() != 16) GTEST_SKIP() << "tiles for 1x16";
  ConvShape s;  // the tutorial's layer
  s.virtual_threads = 1;
  const Result one = compiled_convolution(2, nullptr, s);
  EXPECT_TRUE(one.ok()) << one.error;
  s.virtual_threads = 2, s.oc_block = 4, s.h_block = 2, s.w_block = 7, s.ic_block = 2;
  const Result small = compiled_convolution(2, nullptr, s);
  EXPECT_TRUE(small.ok()) << small.error;
  EXPECT_EQ(one.stats.gemm_counter, small.stats.gemm_counter) << "the same arithmetic however it is tiled";
}

}  // namespace
}  // namespace vta::tutorials

namespace vta::compiler {
namespace {

// A pure ALU workload: c = relu(a + b) on int32 tensors loaded into the accumulator.
TEST(CompiledAlu, ElementwiseAddThenRelu) {
  const Env env(vta::build_config());
  const int64_t blocks = 8;
  Tensor a = placeholder({blocks, 1, env.BATCH, env.BLOCK_OUT}, "a", DType::kInt32);
  Tensor b = placeholder(a->shape, "b", DType::kInt32);
  auto at = [](const Tensor& t, const Indices& i) { return read(t, {i[0], i[1], i[2], i[3]}); };
  Tensor a_buf = compute(a->shape, [&](const Indices& i) { return at(a, i); }, "a_buf");
  Tensor b_buf = compute(b->shape, [&](const Indices& i) { return at(b, i); }, "b_buf");
  Tensor sum_ab = compute(a->shape, [&](const Indices& i) { return at(a_buf, i) + at(b_buf, i); }, "sum_ab");
  Tensor relu = compute(a->shape, [&](const Indices& i) { return max(at(sum_ab, i), 0); }, "relu");
  Tensor res = compute(a->shape, [&](const Indices& i) { return cast(DType::kInt8, at(relu, i)); }, "res");
  Schedule s = create_schedule(res);
  auto [outer, inner] = s[res].split(res->op->axis[0], 4);
  for (const Tensor& t : {a_buf, b_buf, sum_ab, relu}) {
    s[t].set_scope(env.acc_scope);
    s[t].compute_at(s[res], outer);
  }
  s[a_buf].pragma(a_buf->op->axis[0], env.dma_copy);
  s[b_buf].pragma(b_buf->op->axis[0], env.dma_copy);
  s[sum_ab].pragma(sum_ab->op->axis[0], env.alu);
  s[relu].pragma(relu->op->axis[0], env.alu);
  s[res].pragma(inner, env.dma_copy);
  const Module m = build(s, {a, b, res}, env);
  const std::string text = to_text(m.program());
  // the add reads b's buffer (no immediate); relu is MAX with the immediate 0, in place
  EXPECT_NE(text.find(", 2, 0, 0, dtype=int32)"), std::string::npos) << text;
  EXPECT_NE(text.find(", 1, 1, 0, dtype=int32)"), std::string::npos) << text;

  std::mt19937 rng(4);
  std::uniform_int_distribution<int32_t> d(-1000, 1000);
  const size_t n = size_t(a->elements());
  std::vector<int32_t> ha(n), hb(n);
  for (auto& v : ha) v = d(rng);
  for (auto& v : hb) v = d(rng);
  DeviceTensor da(a->shape, vta::DType::kInt32, "a"), db(b->shape, vta::DType::kInt32, "b"),
      dr(res->shape, vta::DType::kInt8, "res");
  da.copy_from(ha);
  db.copy_from(hb);
  m({&da, &db, &dr});
  std::vector<int8_t> got(n);
  dr.copy_to(got);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], static_cast<int8_t>(std::max(ha[i] + hb[i], 0))) << "element " << i;
  }
}

}  // namespace
}  // namespace vta::compiler
