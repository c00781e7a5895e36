// The compiler's generality: schedules of several shapes and tilings are compiled, run on the
// runtime's device (the fsim by default) and every output is compared with a plain C++ reference.
// GEMMs of several sizes, tile factors, 1 or 2 virtual threads, with and without the shift/clip
// epilogue, BATCH > 1 where the configuration has it; every ResNet-18 convolution shape; a pure ALU
// workload; and the errors a user gets for schedules the accelerator cannot run.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <tuple>

#include "test_paths.h"
#include "vta/compiler/build.h"
#include "vta/compiler/te.h"
#include "vta/driver/build_config.h"
#include "vta/runtime/tensor.h"
#include "vta/workloads/compiled.h"

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
  add(1, 16, 16, 1, 4, 4, 1, true);  // square, small tiles
  add(1, 32, 8, 1, 2, 8, 2, true);   // wide input, two threads
  add(1, 8, 32, 1, 8, 2, 2, false);  // wide output, no epilogue
  add(1, 4, 4, 1, 4, 4, 1, false);   // one tile
  add(2, 16, 16, 2, 4, 4, 1, true);  // several batch blocks per tile
  add(4, 8, 16, 1, 4, 8, 2, true);   // batch blocks as outer loop, two threads
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

TEST(CompiledConv2d, EveryResNet18Shape) {
  if (vta::build_config().batch() != 1 || vta::build_config().block_in() != 16) GTEST_SKIP() << "tiles for 1x16";
  const auto layers = resnet18_convolutions();
  ASSERT_EQ(layers.size(), 10u);
  for (const auto& [what, s] : layers) {
    Result r;
    try {
      r = compiled_convolution(5, nullptr, s);
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": " << e.what();
      continue;
    }
    EXPECT_TRUE(r.ran) << what << ": " << r.error;
    EXPECT_EQ(r.mismatches, 0u) << what;
    const int64_t oh = (s.height + 2 * s.pad - s.kernel) / s.stride + 1;
    EXPECT_EQ(r.outputs, size_t(oh * oh * s.out_channels)) << what;
    EXPECT_EQ(r.stats.gemm_counter,
              uint64_t(oh * oh * (s.out_channels / 16) * (s.in_channels / 16) * s.kernel * s.kernel))
        << what;
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

// Tiles that do not divide the extents (TVM accepts any split): the whole tiles run as a loop, the last,
// shorter one after it, with shorter DMA transfers and loops. Extents that are primes, 1, tiles of the
// extent itself and larger than it; every output against the plain C++ reference, and the GEMM count
// that of the untiled product (no block computed twice or left out).
TEST(CompiledGemm, TilesThatDoNotDivideTheExtents) {
  const int batch = vta::build_config().batch(), block = vta::build_config().block_in();
  struct Case {
    int64_t b, in, out, bb, ob, ib;
  };
  for (const Case c : {Case{1, 7, 5, 1, 2, 3}, Case{3, 5, 7, 2, 3, 2}, Case{1, 13, 11, 1, 4, 5}, Case{1, 1, 1, 1, 1, 1},
                       Case{2, 3, 5, 2, 5, 3}, Case{1, 5, 3, 1, 4, 6}, Case{5, 4, 4, 3, 3, 3}}) {
    MatmulShape s;
    s.batch = c.b * batch, s.in_channels = c.in * block, s.out_channels = c.out * block;
    s.b_block = c.bb, s.o_block = c.ob, s.i_block = c.ib, s.virtual_threads = 1;
    Result r;
    try {
      r = compiled_matrix_multiply(5, nullptr, s);
    } catch (const std::exception& e) {
      ADD_FAILURE() << describe(s) << ": " << e.what();
      continue;
    }
    EXPECT_TRUE(r.ok()) << describe(s) << ": " << r.error;
    EXPECT_EQ(r.outputs, size_t(s.batch * s.out_channels)) << describe(s);
    EXPECT_EQ(r.stats.gemm_counter, uint64_t(c.b * c.out * c.in)) << describe(s);
  }
}

TEST(CompiledConv2d, TilesThatDoNotDivideTheExtents) {
  if (vta::build_config().batch() != 1 || vta::build_config().block_in() != 16) GTEST_SKIP() << "tiles for 1x16";
  ConvShape s;  // 7x5 pixels, 3 -> 3 channel blocks: every extent prime, no tile dividing it
  s.height = 7, s.width = 5, s.in_channels = 48, s.out_channels = 48, s.virtual_threads = 1;
  s.oc_block = 2, s.h_block = 3, s.w_block = 2, s.ic_block = 2;
  const Result r = compiled_convolution(3, nullptr, s);
  EXPECT_TRUE(r.ok()) << r.error;
  ConvShape whole = s;  // one tile: the reference count of GEMMs
  whole.oc_block = 3, whole.h_block = 7, whole.w_block = 5, whole.ic_block = 3;
  const Result one = compiled_convolution(3, nullptr, whole);
  EXPECT_TRUE(one.ok()) << one.error;
  EXPECT_EQ(r.stats.gemm_counter, one.stats.gemm_counter) << "the same arithmetic however it is tiled";
  s.store_rows = true, s.stride = 2, s.h_block = 2, s.w_block = 3;  // strided, rows stored in 2D
  const Result strided = compiled_convolution(4, nullptr, s);
  EXPECT_TRUE(strided.ok()) << strided.error;
}

// BuildOptions::overlap_tiles: the token that frees the input and weight buffers after a tile's last
// GEMM goes to the next tile's first load, so the loads overlap the tile's ALU stages and the next
// reset. Same outputs and arithmetic, with one and two virtual threads. With one thread the compute
// stage waited for every tile's first load: on a clocked backend it takes fewer cycles (639,125 ->
// 632,230 on the tsim). (With two threads this layer loses 0.5 %: the compute stage's micro-op loads
// queue behind the loads running ahead; docs/NETWORK.md.)
TEST(CompiledConv2d, OverlappingTilesLoadAheadOfTheEpilogue) {
  if (vta::build_config().batch() != 1 || vta::build_config().block_in() != 16) GTEST_SKIP() << "tiles for 1x16";
  for (const int64_t threads : {int64_t{1}, int64_t{2}}) {
    ConvShape s;  // the tutorial's layer, its rows stored with 2D transfers
    s.store_rows = true;
    s.virtual_threads = threads;
    const Result plain = compiled_convolution(4, nullptr, s);
    s.overlap_tiles = true;
    const Result overlapped = compiled_convolution(4, nullptr, s);
    ASSERT_TRUE(plain.ok()) << plain.error;
    ASSERT_TRUE(overlapped.ok()) << threads << " threads: " << overlapped.error;
    EXPECT_EQ(overlapped.stats.gemm_counter, plain.stats.gemm_counter);
    EXPECT_EQ(overlapped.stats.inp_load_nbytes, plain.stats.inp_load_nbytes);
    if (threads == 1 && plain.stats.cycle_count > 0) {
      EXPECT_LT(overlapped.stats.cycle_count, plain.stats.cycle_count);
    }
  }
}

// Env::thread_banks: the tutorial's two threads each in a half of the accumulator (thread 1 from 1024,
// not right after thread 0's 784 elements), with the same outputs and statistics.
TEST(CompiledConv2d, ThreadBanksPutEachThreadInAHalfOfTheAccumulator) {
  if (vta::build_config().batch() != 1 || vta::build_config().block_in() != 16) GTEST_SKIP() << "tiles for 1x16";
  ConvShape s;  // the tutorial's layer: 8 x 7 x 14 = 784 accumulator elements a thread
  std::ostringstream plain_steps, banked_steps;
  const Result plain = compiled_convolution(6, &plain_steps, s);
  s.thread_banks = true;
  const Result banked = compiled_convolution(6, &banked_steps, s);
  ASSERT_TRUE(plain.ok()) << plain.error;
  ASSERT_TRUE(banked.ok()) << banked.error;
  EXPECT_EQ(banked.stats.gemm_counter, plain.stats.gemm_counter);
  EXPECT_EQ(banked.stats.alu_counter, plain.stats.alu_counter);
  EXPECT_EQ(banked.stats.out_store_nbytes, plain.stats.out_store_nbytes);
  const uint32_t half = vta::build_config().acc_depth() / 2;
  const std::string program = banked_steps.str().substr(banked_steps.str().rfind("final lowered program"));
  const std::string before = plain_steps.str().substr(plain_steps.str().rfind("final lowered program"));
  EXPECT_NE(before.find("(cthread.s_1*784)"), std::string::npos) << before;
  EXPECT_EQ(program.find("*784)"), std::string::npos) << program;
  EXPECT_NE(program.find("(cthread.s_1*" + std::to_string(half) + ")"), std::string::npos) << program;
}

}  // namespace
}  // namespace vta::tutorials

namespace vta::compiler {
namespace {

// Runs a module of two inputs, a (int32) and b (int32, or int8 as B), into an int8 result on seeded random
// values in [lo, hi] (b's taken modulo 128 when it is int8), and gives the three arrays to the caller's
// checks.
template <class B>
struct ElementwiseRun {
  std::vector<int32_t> a;
  std::vector<B> b;
  std::vector<int8_t> out;
};
template <class B>
ElementwiseRun<B> run_elementwise(const Module& m, const Tensor& a, const Tensor& b, const Tensor& res, unsigned seed,
                                  int32_t lo, int32_t hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> d(lo, hi);
  const size_t n = size_t(a->elements());
  ElementwiseRun<B> r{std::vector<int32_t>(n), std::vector<B>(n), std::vector<int8_t>(n)};
  for (auto& v : r.a) v = d(rng);
  for (auto& v : r.b) v = static_cast<B>(sizeof(B) == 1 ? d(rng) % 128 : d(rng));
  constexpr auto kB = sizeof(B) == 1 ? vta::runtime::DType::kInt8 : vta::runtime::DType::kInt32;
  runtime::DeviceTensor da(a->shape, vta::runtime::DType::kInt32, "a"), db(b->shape, kB, "b"),
      dr(res->shape, vta::runtime::DType::kInt8, "res");
  da.copy_from(r.a);
  db.copy_from(r.b);
  m({&da, &db, &dr});
  dr.copy_to(r.out);
  return r;
}

// The elementwise tests' operands: a (int32) and b (int32, or int8 loaded sign-extended into the
// accumulator) of 8 blocks, their accumulator buffers, and the schedule they share: the result split
// in tiles of 4 blocks, every stage on the accumulator at the tile loop, the buffers by DMA, the
// given stages on the ALU, the result stored by DMA.
struct ElementwiseOperands {
  Env env{vta::build_config()};
  Tensor a, b, a_buf, b_buf;
  explicit ElementwiseOperands(DType b_type) {
    a = placeholder({8, 1, env.BATCH, env.BLOCK_OUT}, "a", DType::kInt32);
    b = placeholder(a->shape, "b", b_type);
    a_buf = compute(
        a->shape, [&](const Indices& i) { return a(i); }, "a_buf");
    b_buf = compute(
        b->shape, [&](const Indices& i) { return b_type == DType::kInt32 ? b(i) : cast(DType::kInt32, b(i)); },
        "b_buf");
  }
  // a stage of a's shape named `name`
  Tensor stage(const char* name, const std::function<Expr(const Indices&)>& body) const {
    return compute(a->shape, body, name);
  }
  Tensor sum() const {
    return stage("sum_ab", [&](const Indices& i) { return a_buf(i) + b_buf(i); });
  }
  // the result: `last` as int8
  Tensor result(const Tensor& last) const {
    return stage("res", [&](const Indices& i) { return cast(DType::kInt8, last(i)); });
  }
  Module build(const std::vector<Tensor>& alu_stages, const Tensor& res) const {
    Schedule s = create_schedule(res);
    auto [outer, inner] = s[res].split(res->op->axis[0], 4);
    std::vector<Tensor> on_acc{a_buf, b_buf};
    on_acc.insert(on_acc.end(), alu_stages.begin(), alu_stages.end());
    for (const Tensor& t : on_acc) {
      s[t].set_scope(env.acc_scope);
      s[t].compute_at(s[res], outer);
    }
    s[a_buf].pragma(a_buf->op->axis[0], env.dma_copy);
    s[b_buf].pragma(b_buf->op->axis[0], env.dma_copy);
    for (const Tensor& t : alu_stages) s[t].pragma(t->op->axis[0], env.alu);
    s[res].pragma(inner, env.dma_copy);
    return vta::compiler::build(s, {a, b, res}, env);
  }
};

// A pure ALU workload: c = relu(a + b) on int32 tensors loaded into the accumulator.
TEST(CompiledAlu, ElementwiseAddThenRelu) {
  const ElementwiseOperands e(DType::kInt32);
  const Tensor &a = e.a, &b = e.b;
  const Tensor sum_ab = e.sum();
  const Tensor relu = e.stage("relu", [&](const Indices& i) { return max(sum_ab(i), 0); });
  const Tensor res = e.result(relu);
  const Module m = e.build({sum_ab, relu}, res);
  const std::string text = to_text(m.program());
  // the add reads b's buffer (no immediate); relu is MAX with the immediate 0, in place
  EXPECT_NE(text.find(", 2, 0, 0, dtype=int32)"), std::string::npos) << text;
  EXPECT_NE(text.find(", 1, 1, 0, dtype=int32)"), std::string::npos) << text;

  const auto r = run_elementwise<int32_t>(m, a, b, res, 4, -1000, 1000);
  for (size_t i = 0; i < r.out.size(); ++i) {
    ASSERT_EQ(r.out[i], static_cast<int8_t>(std::max(r.a[i] + r.b[i], 0))) << "element " << i;
  }
}

// A residual: c = clip(a + b, 0, 127) with a int32 and b int8, b loaded into the accumulator with
// ACC_8BIT (each lane sign-extended): negative b values must subtract.
TEST(CompiledAlu, Int8OperandIsLoadedSignExtended) {
  const ElementwiseOperands e(DType::kInt8);
  const Tensor &a = e.a, &b = e.b;
  const Tensor sum_ab = e.sum();
  const Tensor lo = e.stage("lo", [&](const Indices& i) { return max(sum_ab(i), 0); });
  const Tensor hi = e.stage("hi", [&](const Indices& i) { return min(lo(i), 127); });
  const Tensor res = e.result(hi);
  const Module m = e.build({sum_ab, lo, hi}, res);
  const std::string text = to_text(m.program());
  // a: ACC (3); b: ACC_8BIT (5), both on the compute stage (coproc_scope 2), with no tokens between them
  EXPECT_NE(text.find("VTALoadBuffer2D\", a, (i0.outer*4), 4, 1, 4, 0, 0, 0, 0, 0, 3, dtype=int32)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("VTALoadBuffer2D\", b, (i0.outer*4), 4, 1, 4, 0, 0, 0, 0, 4, 5, dtype=int32)"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("coproc_scope\" = 1"), std::string::npos) << "nothing runs on the load stage\n" << text;

  const auto r = run_elementwise<int8_t>(m, a, b, res, 5, -200, 200);
  size_t negative = 0;
  for (size_t i = 0; i < r.out.size(); ++i) {
    negative += r.b[i] < 0;
    ASSERT_EQ(r.out[i], static_cast<int8_t>(std::clamp(r.a[i] + r.b[i], 0, 127))) << "element " << i;
  }
  EXPECT_GT(negative, r.out.size() / 4) << "the test must exercise the sign extension";
}

// MUL (opcode 4) by a tensor and by an immediate, and a copy (the ISA has no MOV: MUL by 0 then ADD):
// c = a * b, d = copy of c scaled by -3, out = the copy with c added back (c is read twice, so the copy
// cannot happen in place). Against a plain C++ computation with 32-bit wrap-around.
TEST(CompiledAlu, MultiplyAndCopy) {
  const ElementwiseOperands e(DType::kInt32);
  const Tensor &a = e.a, &b = e.b;
  const Tensor prod = e.stage("prod", [&](const Indices& i) { return e.a_buf(i) * e.b_buf(i); });
  const Tensor copy = e.stage("copy", [&](const Indices& i) { return prod(i); });
  const Tensor scaled = e.stage("scaled", [&](const Indices& i) { return copy(i) * -3; });
  const Tensor sum = e.stage("sum", [&](const Indices& i) { return scaled(i) + prod(i); });
  const Tensor res = e.result(sum);
  const Module m = e.build({prod, copy, scaled, sum}, res);
  const std::string text = to_text(m.program());
  // MUL of two buffers, MUL by -3, the copy's MUL by 0 then ADD of another buffer
  EXPECT_NE(text.find(", 4, 0, 0, dtype=int32)"), std::string::npos) << text;
  EXPECT_NE(text.find(", 4, 1, -3, dtype=int32)"), std::string::npos) << text;
  EXPECT_NE(text.find(", 4, 1, 0, dtype=int32)"), std::string::npos) << text;

  const auto r = run_elementwise<int32_t>(m, a, b, res, 6, -100000, 100000);
  for (size_t i = 0; i < r.out.size(); ++i) {
    const uint32_t p = uint32_t(r.a[i]) * uint32_t(r.b[i]);  // wraps, as the ALU's low 32 bits
    ASSERT_EQ(r.out[i], static_cast<int8_t>(p * uint32_t(-3) + p)) << "element " << i;
  }
}

// A sum that starts from another tensor (te.sum's init): res = (r << 4 + data . weight) >> 4, with r an
// int8 tensor loaded sign-extended into the accumulator and shifted left by the ALU. The GEMM
// accumulates onto r's buffer: no reset micro-op, no copy, no buffer of the sum's own. Against a plain
// C++ computation, with 2 output tiles and a reduction split in 2.
TEST(CompiledGemm, SumStartsFromAnotherAccumulatorTensor) {
  const Env env(vta::build_config());
  const int64_t ib = 4, ob = 4, shift = 4;
  Tensor data = placeholder({1, ib, env.BATCH, env.BLOCK_IN}, "data", DType::kInt8);
  Tensor weight = placeholder({ob, ib, env.BLOCK_OUT, env.BLOCK_IN}, "weight", DType::kInt8);
  Tensor r = placeholder({1, ob, env.BATCH, env.BLOCK_OUT}, "r", DType::kInt8);
  Tensor data_buf = compute(
      data->shape, [&](const Indices& i) { return data(i); }, "data_buf");
  Tensor weight_buf = compute(
      weight->shape, [&](const Indices& i) { return weight(i); }, "weight_buf");
  Tensor r_buf = compute(
      r->shape, [&](const Indices& i) { return cast(DType::kInt32, r(i)); }, "r_buf");
  Tensor r_shl = compute(
      r->shape, [&](const Indices& i) { return r_buf(i) >> -shift; }, "r_shl");
  IterVar ic = reduce_axis(ib, "ic"), ic_tns = reduce_axis(env.BLOCK_IN, "ic_tns");
  Tensor res_gem = compute(
      r->shape, {"bo", "co", "bi", "ci"},
      [&](const Indices& i) {
        return sum(cast(DType::kInt32, data_buf(i[0], ic.var, i[2], ic_tns.var)) *
                       cast(DType::kInt32, weight_buf(i[1], ic.var, i[3], ic_tns.var)),
                   {ic, ic_tns}, r_shl(i));
      },
      "res_gem");
  Tensor res_shr = compute(
      r->shape, [&](const Indices& i) { return res_gem(i) >> shift; }, "res_shr");
  Tensor res = compute(
      r->shape, [&](const Indices& i) { return cast(DType::kInt8, res_shr(i)); }, "res");
  Schedule s = create_schedule(res);
  const auto& ax = res->op->axis;
  auto [o_out, o_inn] = s[res].split(ax[1], 2);
  s[res].reorder({ax[0], o_out, o_inn, ax[2], ax[3]});
  for (const Tensor& t : {r_buf, r_shl, res_gem, res_shr}) {
    s[t].compute_at(s[res], o_out);
    s[t].set_scope(env.acc_scope);
  }
  const auto& gx = res_gem->op->axis;
  auto [i_out, i_inn] = s[res_gem].split(ic, 2);
  s[res_gem].reorder({i_out, gx[0], gx[1], i_inn, gx[2], gx[3], ic_tns});
  s[data_buf].set_scope(env.inp_scope);
  s[weight_buf].set_scope(env.wgt_scope);
  s[data_buf].compute_at(s[res_gem], i_out);
  s[weight_buf].compute_at(s[res_gem], i_out);
  for (const Tensor& t : {data_buf, weight_buf, r_buf}) s[t].pragma(t->op->axis[0], env.dma_copy);
  for (const Tensor& t : {r_shl, res_shr}) s[t].pragma(t->op->axis[0], env.alu);
  s[res_gem].tensorize(gx[2], "gemm");
  s[res].pragma(o_inn, env.dma_copy);
  const Module m = build(s, {data, weight, r, res}, env);
  const std::string text = to_text(m.program());
  for (const char* gone : {"allocate(res_gem", "allocate(r_shl", "allocate(res_shr"}) {
    EXPECT_EQ(text.find(gone), std::string::npos) << gone << "\n" << text;
  }
  EXPECT_EQ(text.find("uop_push(0, 1,"), std::string::npos) << "no reset micro-op\n" << text;
  EXPECT_NE(text.find(", 3, 1, -4, dtype=int32)"), std::string::npos) << "SHR by -4 (shift left)\n" << text;
  EXPECT_EQ(text.find(", 2, 0, 0, dtype=int32)"), std::string::npos) << "no ADD of two buffers\n" << text;

  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> hd(size_t(data->elements())), hw(size_t(weight->elements())), hr(size_t(r->elements()));
  for (auto* v : {&hd, &hw, &hr}) {
    for (auto& x : *v) x = static_cast<int8_t>(d(rng));
  }
  runtime::DeviceTensor dd(data->shape, vta::runtime::DType::kInt8, "data"),
      dw(weight->shape, vta::runtime::DType::kInt8, "weight"), dr(r->shape, vta::runtime::DType::kInt8, "r"),
      dres(res->shape, vta::runtime::DType::kInt8, "res");
  dd.copy_from(hd);
  dw.copy_from(hw);
  dr.copy_from(hr);
  m({&dd, &dw, &dr, &dres});
  std::vector<int8_t> got(size_t(res->elements()));
  dres.copy_to(got);
  const int64_t bi_n = env.BATCH, bo_n = env.BLOCK_OUT, bk = env.BLOCK_IN;
  for (int64_t co = 0; co < ob; ++co) {
    for (int64_t b = 0; b < bi_n; ++b) {
      for (int64_t c = 0; c < bo_n; ++c) {
        const size_t at_out = size_t((co * bi_n + b) * bo_n + c);
        int32_t acc = int32_t(hr[at_out]) * (1 << shift);
        for (int64_t k = 0; k < ib; ++k) {
          for (int64_t t = 0; t < bk; ++t) {
            acc +=
                int32_t(hd[size_t((k * bi_n + b) * bk + t)]) * int32_t(hw[size_t(((co * ib + k) * bo_n + c) * bk + t)]);
          }
        }
        ASSERT_EQ(got[at_out], static_cast<int8_t>(acc >> shift)) << "element " << at_out;
      }
    }
  }
}

// A small GEMM with a >> 8 epilogue (the tutorial's declaration without the clip) in the tutorial's
// schedule; tests break one thing at a time.
tutorials::MatmulShape small_gemm_shape(const Env& env) {
  tutorials::MatmulShape shape;
  shape.batch = env.BATCH;
  shape.in_channels = 4 * env.BLOCK_IN;
  shape.out_channels = 4 * env.BLOCK_OUT;
  shape.clip = false;
  return shape;
}

struct SmallGemm {
  Env env{vta::build_config()};
  tutorials::MatmulDeclaration d = tutorials::declare_matrix_multiply(env, small_gemm_shape(env));
  Tensor &data = d.data, &weight = d.weight, &data_buf = d.data_buf, &weight_buf = d.weight_buf;
  IterVar &ic = d.ic, &ic_tns = d.ic_tns;
  Tensor &res_gem = d.res_gem, &res_shr = d.res_shr, &res = d.res;
  int64_t ib = 4, ob = 4;  // (small_gemm_shape's blocks)
  Schedule s = create_schedule(res);
  IterVar oc_out, ic_out;

  SmallGemm() {
    const auto& ax = res->op->axis;
    auto [o_out, o_inn] = s[res].split(ax[1], 2);
    oc_out = o_out;
    s[res].reorder({ax[0], o_out, o_inn, ax[2], ax[3]});
    for (const Tensor& t : {res_gem, res_shr}) {
      s[t].compute_at(s[res], oc_out);
      s[t].set_scope(env.acc_scope);
    }
    const auto& gx = res_gem->op->axis;
    auto [i_out, i_inn] = s[res_gem].split(ic, 2);
    ic_out = i_out;
    s[res_gem].reorder({i_out, gx[0], gx[1], i_inn, gx[2], gx[3], ic_tns});
    s[data_buf].set_scope(env.inp_scope);
    s[weight_buf].set_scope(env.wgt_scope);
    s[data_buf].compute_at(s[res_gem], ic_out);
    s[weight_buf].compute_at(s[res_gem], ic_out);
    s[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
    s[weight_buf].pragma(weight_buf->op->axis[0], env.dma_copy);
    s[res].pragma(ax[2], env.dma_copy);
  }
  Module build_it() { return build(s, {data, weight, res}, env); }
  std::string error() {
    try {
      build_it();
    } catch (const ScheduleError& e) {
      return e.what();
    }
    return "";
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CompilerErrors, TheValidScheduleBuilds) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  EXPECT_NO_THROW(g.build_it());
}

TEST(CompilerErrors, AStageLeftOnTheHostIsNamed) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");  // no alu pragma on res_shr
  const std::string e = g.error();
  EXPECT_TRUE(contains(e, "res_shr") && contains(e, "alu pragma")) << e;
}

TEST(CompilerErrors, TensorizingTheWrongAxisIsNamed) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[1], "gemm");  // co: the region holds ic.inner too
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  const std::string e = g.error();
  // (the reset nest is checked first: its copy of co is co.init)
  EXPECT_TRUE(contains(e, "stage res_gem") && contains(e, "tensorize gemm at axis co") &&
              contains(e, "is not a dimension of the GEMM element"))
      << e;
}

TEST(CompilerErrors, AnAluOperationItCannotDoIsNamed) {
  SmallGemm g;
  Tensor neg = compute(
      g.res_gem->shape,
      [&](const Indices& i) {
        return floordiv(read(g.res_gem, {i[0], i[1], i[2], i[3]}), 3);
      },
      "res_div");
  Tensor res = compute(
      g.res_gem->shape, [&](const Indices& i) { return cast(DType::kInt8, neg(i[0], i[1], i[2], i[3])); }, "res");
  Schedule s = create_schedule(res);
  const auto& ax = res->op->axis;
  for (const Tensor& t : {g.data_buf, g.weight_buf, g.res_gem, neg}) s[t].compute_at(s[res], ax[1]);
  s[g.data_buf].set_scope(g.env.inp_scope);
  s[g.weight_buf].set_scope(g.env.wgt_scope);
  s[g.res_gem].set_scope(g.env.acc_scope);
  s[neg].set_scope(g.env.acc_scope);
  s[g.data_buf].pragma(g.data_buf->op->axis[0], g.env.dma_copy);
  s[g.weight_buf].pragma(g.weight_buf->op->axis[0], g.env.dma_copy);
  const auto& gx = g.res_gem->op->axis;
  s[g.res_gem].reorder({gx[0], gx[1], g.ic, gx[2], gx[3], g.ic_tns});
  s[g.res_gem].tensorize(gx[2], "gemm");
  s[neg].pragma(neg->op->axis[0], g.env.alu);
  s[res].pragma(ax[2], g.env.dma_copy);
  try {
    build(s, {g.data, g.weight, res}, g.env);
    ADD_FAILURE() << "a division built";
  } catch (const ScheduleError& e) {
    EXPECT_TRUE(contains(e.what(), "stage res_gem") || contains(e.what(), "res_div")) << e.what();
    EXPECT_TRUE(contains(e.what(), "not an ALU operation")) << e.what();
  }
}

TEST(CompilerErrors, BuffersThatDoNotFitTheSramAreNamed) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  // a copy of the whole weight matrix per tile: 4 x 4 blocks fit; scale the check with a tiny config
  ConfigParams p = vta::build_config().params();
  p.log_wgt_buff_size -= 9;  // 1/512 of the weight SRAM: 2 elements, the tile needs 2 x 2
  const Env tiny(Config::make(p));
  try {
    build(g.s, {g.data, g.weight, g.res}, tiny);
    ADD_FAILURE() << "built into a weight SRAM that is too small";
  } catch (const ScheduleError& e) {
    EXPECT_TRUE(contains(e.what(), "weight_buf") && contains(e.what(), tiny.wgt_scope)) << e.what();
  }
}

// The tile loop's body starts with the loads (copies computed at the tile loop, the whole reduction
// in one step) and ends with the store: the loop carries tokens store -> compute and compute -> load.
TEST(CompiledGemm, LoadsAtTheTileLoop) {
  SmallGemm g;
  Schedule& s = g.s;
  const auto& gx = g.res_gem->op->axis;
  s[g.res_gem].tensorize(gx[2], "gemm");
  s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  s[g.data_buf].compute_at(s[g.res], g.oc_out);
  s[g.weight_buf].compute_at(s[g.res], g.oc_out);
  const Module m = g.build_it();
  const std::string text = to_text(m.program());
  EXPECT_TRUE(contains(text,
                       "coproc_dep_push(3, 2, dtype=int32)\n      @tir.vta.coproc_dep_push(2, 1, dtype=int32)\n"
                       "      for (i1.outer"))
      << text;
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> a(size_t(g.data->elements())), w(size_t(g.weight->elements()));
  for (auto& x : a) x = static_cast<int8_t>(d(rng));
  for (auto& x : w) x = static_cast<int8_t>(d(rng));
  runtime::DeviceTensor da(g.data->shape, vta::runtime::DType::kInt8), dw(g.weight->shape, vta::runtime::DType::kInt8),
      dr(g.res->shape, vta::runtime::DType::kInt8);
  const int in = int(g.ib * g.env.BLOCK_IN), out = int(g.ob * g.env.BLOCK_OUT), batch = g.env.BATCH;
  da.copy_from(vta::runtime::pack_matrix(a, batch, in, g.env.BATCH, g.env.BLOCK_IN));
  dw.copy_from(vta::runtime::pack_matrix(w, out, in, g.env.BLOCK_OUT, g.env.BLOCK_IN));
  m({&da, &dw, &dr});
  std::vector<int8_t> got(dr.elements());
  dr.copy_to(got);
  const auto ref = vta::runtime::gemm_reference(a, w, batch, in, out);
  const auto flat = vta::runtime::unpack_matrix(got, batch, out, g.env.BATCH, g.env.BLOCK_OUT);
  for (size_t i = 0; i < flat.size(); ++i) ASSERT_EQ(flat[i], static_cast<int8_t>(ref[i] >> 8)) << i;
}

TEST(CompilerErrors, VirtualThreadsMustBeTheOutermostLoop) {
  SmallGemm g;
  auto [rest, tx] = g.s[g.res].split(g.oc_out, 2);
  (void)rest;
  g.s[g.res].bind(tx, "cthread");  // inner: the tile's stages are computed at oc_out... which is split
  const std::string e = g.error();
  EXPECT_TRUE(contains(e, "compute_at") && contains(e, "no longer a loop")) << e;
}

// A module as data: written to JSON and read back, it prints the same final program and computes the
// same outputs; a file written and loaded likewise; every kind of bad file is refused by name.
TEST(ModuleFiles, AModuleReadBackRunsTheSame) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  const Module m = g.build_it();
  const std::string text = m.to_json();
  const Module back = Module::from_json(text);
  EXPECT_EQ(to_text(back.program()), to_text(m.program()));
  EXPECT_EQ(back.to_json(), text) << "writing what was read gives the same file";
  const auto path = vta::test::scratch_path("vta_module.vtam");
  m.save(path.string());
  const Module loaded = Module::load(path.string());
  std::filesystem::remove(path);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> a(size_t(g.data->elements())), w(size_t(g.weight->elements()));
  for (auto& x : a) x = static_cast<int8_t>(d(rng));
  for (auto& x : w) x = static_cast<int8_t>(d(rng));
  auto run = [&](const Module& mod) {
    runtime::DeviceTensor da(g.data->shape, vta::runtime::DType::kInt8),
        dw(g.weight->shape, vta::runtime::DType::kInt8), dr(g.res->shape, vta::runtime::DType::kInt8);
    da.copy_from(a);
    dw.copy_from(w);
    mod({&da, &dw, &dr});
    std::vector<int8_t> out(dr.elements());
    dr.copy_to(out);
    return out;
  };
  const auto expected = run(m);
  EXPECT_EQ(run(back), expected);
  EXPECT_EQ(run(loaded), expected);
}

// A module runs only on a device of the configuration it was built for: one built for 4-bit weights
// on this build's device (8-bit unless this is a width tree) is refused by name before any call, and
// its file is refused by this build.
TEST(ModuleFiles, AModuleOfAnotherConfigurationIsRefusedByName) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  const Module m = g.build_it();
  EXPECT_EQ(m.hardware(), vta::build_config().bitstream_name());
  const std::string sample = vta::build_config().wgt_width() == 4 ? "w8a4" : "w4a8";
  const vta::Config other = vta::Config::from_file(vta::test::source_path("config/samples/" + sample + ".json"));
  const Module foreign(m.program(), m.args(), "", other.bitstream_name());
  runtime::DeviceTensor da(g.data->shape, runtime::DType::kInt8), dw(g.weight->shape, runtime::DType::kInt8),
      dr(g.res->shape, runtime::DType::kInt8);
  try {
    foreign({&da, &dw, &dr});
    ADD_FAILURE() << "a module of " << other.bitstream_name() << " ran";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("built for hardware configuration " + other.bitstream_name() +
                                         " but the runtime's device is " + vta::build_config().bitstream_name()),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)Module::from_json(foreign.to_json()), ModuleError);
}

// int4, the type of 4-bit lanes: its wrap-around, name and device type, and the Env's types at each
// width combination.
TEST(CompilerTypes, Int4IsTheTypeOfFourBitLanes) {
  EXPECT_EQ(wrap(7, DType::kInt4), 7);
  EXPECT_EQ(wrap(8, DType::kInt4), -8);
  EXPECT_EQ(wrap(-9, DType::kInt4), 7);
  EXPECT_EQ(wrap(0x1F, DType::kInt4), -1);
  EXPECT_EQ(wrap(-129, DType::kInt8), 127);
  EXPECT_EQ(bits(DType::kInt4), 4);
  EXPECT_STREQ(to_string(DType::kInt4), "int4");
  EXPECT_EQ(dtype_from_string("int4"), DType::kInt4);
  EXPECT_EQ(device_dtype(DType::kInt4), runtime::DType::kInt4);
  EXPECT_EQ(device_bytes(placeholder({2, 16}, "x", DType::kInt4)), 16u);
  EXPECT_EQ(device_bytes(placeholder({2, 16}, "x", DType::kInt32)), 128u);
  EXPECT_THROW((void)device_dtype(DType::kBool), ScheduleError);
  const auto env_of = [](const std::string& sample) {
    return Env(vta::Config::from_file(vta::test::source_path("config/samples/" + sample + ".json")));
  };
  for (const auto& [sample, inp, wgt] :
       {std::tuple{"w4a8", DType::kInt8, DType::kInt4}, std::tuple{"w8a4", DType::kInt4, DType::kInt8},
        std::tuple{"w4a4", DType::kInt4, DType::kInt4}}) {
    const Env env = env_of(sample);
    EXPECT_EQ(env.inp_dtype, inp) << sample;
    EXPECT_EQ(env.wgt_dtype, wgt) << sample;
  }
}

TEST(ModuleFiles, BadFilesAreRefusedByName) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  const std::string good = g.build_it().to_json();
  auto refusal = [](const std::string& text) -> std::string {
    try {
      (void)Module::from_json(text, "m.vtam");
    } catch (const ModuleError& e) {
      return e.what();
    }
    return "accepted";
  };
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  EXPECT_TRUE(contains(refusal("{not json"), "m.vtam: not JSON")) << refusal("{not json");
  EXPECT_TRUE(contains(refusal("[]"), "expected an object")) << refusal("[]");
  std::string r = refusal(edit("\"vta-module\"", "\"elf\""));
  EXPECT_TRUE(contains(r, "not a VTA module")) << r;
  r = refusal(edit("\"version\": 1", "\"version\": 2"));
  EXPECT_TRUE(contains(r, "version 2 (this build reads version 1)")) << r;
  r = refusal(edit(vta::build_config().bitstream_name(), "2x8_i8w8a32_15_15_18_17"));
  EXPECT_TRUE(contains(r, "config: built for hardware configuration 2x8")) << r;
  r = refusal(edit("\"VTALoadBuffer2D\"", "\"system\""));
  EXPECT_TRUE(contains(r, "unknown intrinsic \"system\"") && contains(r, "program.")) << r;
  r = refusal(edit("\"k\": \"For\"", "\"k\": \"While\""));
  EXPECT_TRUE(contains(r, "unknown statement kind \"While\"")) << r;
  r = refusal(edit("\"src\": 0", "\"src\": 999"));
  EXPECT_TRUE(contains(r, "no tensor 999")) << r;
  r = refusal(edit("\"int8\"", "\"float\""));
  EXPECT_TRUE(contains(r, "unknown element type \"float\"")) << r;
  // nesting past any real program's depth is refused before it can exhaust the stack
  nlohmann::json deep = nlohmann::json::parse(good);
  nlohmann::json nest = {{"k", "Seq"}, {"seq", nlohmann::json::array()}};
  for (int i = 0; i < 300; ++i) nest = {{"k", "Seq"}, {"seq", nlohmann::json::array({nest})}};
  deep["program"] = nest;
  r = refusal(deep.dump());
  EXPECT_TRUE(contains(r, "nested deeper than 256")) << r;
  r = refusal(std::string(100000, '[') + std::string(100000, ']'));  // before the JSON parser recurses
  EXPECT_TRUE(contains(r, "nested deeper than any module")) << r;
  EXPECT_THROW((void)Module::load("/nonexistent/m.vtam"), ModuleError);
}

// The first JSON node (depth first) for which `match` holds, nullptr when none.
nlohmann::json* find_node(nlohmann::json& j, const std::function<bool(const nlohmann::json&)>& match) {
  if (match(j)) return &j;
  if (j.is_object() || j.is_array()) {
    for (auto& child : j) {
      if (nlohmann::json* hit = find_node(child, match)) return hit;
    }
  }
  return nullptr;
}
auto call_named(const char* name) {
  return [name](const nlohmann::json& n) { return n.is_object() && n.value("k", "") == "Call" && n["name"] == name; };
}

// A module the reader accepts is one the executor can run: every intrinsic with its arguments, in
// its place (micro-op calls only inside a kernel), every variable bound by a loop around it, the DRAM
// side of every transfer an argument. Each of these crashed `vta run` (SIGSEGV) before the reader
// checked them.
TEST(ModuleFiles, ProgramsTheExecutorCannotRunAreRefusedByName) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  const nlohmann::json good = nlohmann::json::parse(g.build_it().to_json());
  auto refusal = [](const nlohmann::json& j) -> std::string {
    try {
      (void)Module::from_json(j.dump(), "m.vtam");
    } catch (const ModuleError& e) {
      return e.what();
    }
    return "accepted";
  };
  auto mutated = [&](const std::function<bool(const nlohmann::json&)>& match,
                     const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = good;
    nlohmann::json* node = find_node(j["program"], match);
    EXPECT_NE(node, nullptr);
    if (node != nullptr) change(*node);
    return refusal(j);
  };
  std::string r = mutated(call_named("vta.uop_push"), [](auto& n) { n["args"].erase(n["args"].size() - 1); });
  EXPECT_TRUE(contains(r, "m.vtam: program.") && contains(r, "vta.uop_push takes 8 arguments, not 7")) << r;
  r = mutated(call_named("VTALoadBuffer2D"), [](auto& n) { n["src"] = -1; });
  EXPECT_TRUE(contains(r, "names the tensor it writes and the tensor it reads")) << r;
  r = mutated(call_named("VTALoadBuffer2D"), [](auto& n) { n["src"] = n["tensor"]; });
  EXPECT_TRUE(contains(r, "which is not an argument of the module")) << r;
  r = mutated(call_named("vta.coproc_sync"), [](auto& n) { n["tensor"] = 0; });
  EXPECT_TRUE(contains(r, "vta.coproc_sync names no tensor")) << r;
  r = mutated(call_named("vta.uop_push"), [](auto& n) {
    n = {{"k", "Call"}, {"name", "vta.coproc_sync"}, {"tensor", -1}, {"src", -1}, {"args", nlohmann::json::array()}};
  });
  EXPECT_TRUE(contains(r, "vta.coproc_sync inside a micro-op kernel")) << r;
  r = mutated(call_named("vta.coproc_sync"), [](auto& n) { n["name"] = "VTAUopLoopEnd"; });
  EXPECT_TRUE(contains(r, "VTAUopLoopEnd outside a micro-op kernel")) << r;
  r = mutated([](const nlohmann::json& n) { return n.is_object() && n.value("key", "") == "coproc_uop_scope"; },
              [](auto& n) { n["value"]["v"] = 7; });
  EXPECT_TRUE(contains(r, "a micro-op kernel is of kind 0 (GEMM) or 1 (ALU)")) << r;
  // a loop variable used outside its loop; a loop binding the variable of a loop around it
  const int64_t vars = int64_t(good["vars"].size());
  ASSERT_GE(vars, 2);
  r = mutated([](const nlohmann::json& n) { return n.is_object() && n.value("k", "") == "For"; },
              [&](auto& n) { n["var"] = (n["var"].template get<int64_t>() + 1) % vars; });
  EXPECT_TRUE(contains(r, "is not bound by a loop around its use") || contains(r, "is bound by a loop around this one"))
      << r;
  nlohmann::json twice = good;
  twice["program"] = {{"k", "For"},
                      {"var", 0},
                      {"extent", 2},
                      {"body", {{"k", "For"}, {"var", 0}, {"extent", 2}, {"body", good["program"]}}}};
  r = refusal(twice);
  EXPECT_TRUE(contains(r, "program.body.var: the variable") && contains(r, "is bound by a loop around this one")) << r;
  nlohmann::json dup = good;
  dup["args"].push_back(dup["args"][0]);
  r = refusal(dup);
  EXPECT_TRUE(contains(r, "args[3]: data is an argument twice")) << r;
}

// A call is bounded before it starts (Module::host_steps against CallLimits), can be cancelled from
// another thread, and stops at the first refused runtime call; a call that stopped leaves nothing
// behind (the next call runs from a clean batch).
TEST(ModuleFiles, ACallIsBoundedCancellableAndStopsAtTheFirstFailure) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  const Module m = g.build_it();
  runtime::DeviceTensor da(g.data->shape, vta::runtime::DType::kInt8), dw(g.weight->shape, vta::runtime::DType::kInt8),
      dr(g.res->shape, vta::runtime::DType::kInt8);
  const std::vector<const runtime::DeviceTensor*> args{&da, &dw, &dr};
  auto message = [&](const Module& mod, const CallLimits& limits) -> std::string {
    try {
      mod(args, limits);
    } catch (const RuntimeError& e) {
      return e.what();
    }
    return "ran";
  };
  const uint64_t steps = m.host_steps();
  EXPECT_GT(steps, 10u);
  CallLimits tight;
  tight.max_host_steps = steps - 1;
  std::string e = message(m, tight);
  EXPECT_TRUE(contains(e, "would execute " + std::to_string(steps) + " statements on the host; the limit is " +
                              std::to_string(steps - 1)))
      << e;
  tight.max_host_steps = steps;
  EXPECT_EQ(message(m, tight), "ran");
  // the loop of 2^32 - 1 iterations a probe sent: refused at once
  nlohmann::json huge = nlohmann::json::parse(m.to_json());
  huge["vars"].push_back("n");
  huge["program"] = {
      {"k", "For"}, {"var", huge["vars"].size() - 1}, {"extent", (int64_t{1} << 32) - 1}, {"body", huge["program"]}};
  const Module h = Module::from_json(huge.dump());
  EXPECT_EQ(h.host_steps(), 1 + ((int64_t{1} << 32) - 1) * (steps + 1));
  e = message(h, {});
  EXPECT_TRUE(contains(e, "the limit is " + std::to_string(CallLimits::kDefaultMaxHostSteps))) << e;
  if (std::getenv("STOP1")) return;
  // cancelled: stops at the first loop iteration
  std::atomic<bool> cancel{true};
  CallLimits cancelled;
  cancelled.cancel = &cancel;
  e = message(m, cancelled);
  EXPECT_TRUE(contains(e, "cancelled")) << e;
  if (std::getenv("STOP2")) return;
  // a transfer past its buffer stops the program there: nothing after it is built or run
  nlohmann::json past = nlohmann::json::parse(m.to_json());
  nlohmann::json* load = find_node(past["program"], call_named("VTALoadBuffer2D"));
  ASSERT_NE(load, nullptr);
  (*load)["args"][2] = {{"k", "Int"}, {"v", 1 << 20}, {"t", "int32"}};  // y_size
  const Module p = Module::from_json(past.dump());
  vta::runtime::clear_runtime_stats();
  e = message(p, {});
  EXPECT_TRUE(contains(e, "VTALoadBuffer2D failed: ") && contains(e, "the transfer reaches bytes")) << e;
  EXPECT_EQ(vta::runtime::runtime_stats().gemm_counter + vta::runtime::runtime_stats().inp_load_nbytes, 0u)
      << "nothing ran";
  EXPECT_EQ(message(m, {}), "ran") << "the next call starts from a clean batch";
}

// Every integer of a good module (a constant, an extent, a tensor or variable reference) replaced by
// an extreme value is either refused by the reader or runs to an exception or a result: never a
// crash, never a hang (what the ASan/UBSan build of this test checks too).
// A call that stops halfway (cancelled, or a transfer refused) goes back to where the batch stood when
// it started: the previous call's last pop (after its synchronize, as the tutorials end) still meets
// its token, so the next call computes what it computed before (it did not: a stale token let the
// next program's compute run ahead of its store).
TEST(ModuleFiles, AStoppedCallLeavesTheNextCallsResultsAsTheyWere) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  const Module m = g.build_it();
  nlohmann::json past = nlohmann::json::parse(m.to_json());
  nlohmann::json* load = find_node(past["program"], call_named("VTALoadBuffer2D"));
  ASSERT_NE(load, nullptr);
  (*load)["args"][2] = {{"k", "Int"}, {"v", 1 << 20}, {"t", "int32"}};  // y_size past the buffer
  const Module refused = Module::from_json(past.dump());
  runtime::DeviceTensor da(g.data->shape, vta::runtime::DType::kInt8), dw(g.weight->shape, vta::runtime::DType::kInt8),
      dr(g.res->shape, vta::runtime::DType::kInt8);
  std::mt19937 rng(9);
  std::vector<int8_t> a(da.elements()), w(dw.elements());
  for (auto& x : a) x = static_cast<int8_t>(rng());
  for (auto& x : w) x = static_cast<int8_t>(rng());
  da.copy_from(a);
  dw.copy_from(w);
  runtime::Context ctx(make_device("fsim", vta::build_config()), Dram::global());
  auto result = [&] {
    m.call(ctx, {da.handle(), dw.handle(), dr.handle()});
    std::vector<int8_t> out(dr.elements());
    dr.copy_to(out);
    return out;
  };
  const std::vector<int8_t> expected = result();
  EXPECT_EQ(result(), expected) << "a second call, after the first's last pop";
  std::atomic<bool> cancel{true};
  CallLimits cancelled;
  cancelled.cancel = &cancel;
  testing::internal::CaptureStderr();
  for (int round = 0; round < 2; ++round) {
    EXPECT_THROW(m.call(ctx, {da.handle(), dw.handle(), dr.handle()}, cancelled), RuntimeError);
    EXPECT_EQ(result(), expected) << "after a cancelled call";
    EXPECT_THROW(refused.call(ctx, {da.handle(), dw.handle(), dr.handle()}), RuntimeError);
    EXPECT_EQ(result(), expected) << "after a refused transfer";
  }
  testing::internal::GetCapturedStderr();
}

TEST(ModuleFiles, EveryMutationIsRefusedOrRunsSafely) {
  SmallGemm g;
  g.s[g.res_gem].tensorize(g.res_gem->op->axis[2], "gemm");
  g.s[g.res_shr].pragma(g.res_shr->op->axis[0], g.env.alu);
  nlohmann::json j = nlohmann::json::parse(g.build_it().to_json());
  std::vector<nlohmann::json*> ints;
  std::function<void(nlohmann::json&)> collect = [&](nlohmann::json& x) {
    if (x.is_number_integer()) ints.push_back(&x);
    if (x.is_object() || x.is_array()) {
      for (auto& c : x) collect(c);
    }
  };
  collect(j["program"]);
  const size_t n = ints.size();
  ASSERT_GT(n, 50u);
  runtime::DeviceTensor da(g.data->shape, vta::runtime::DType::kInt8), dw(g.weight->shape, vta::runtime::DType::kInt8),
      dr(g.res->shape, vta::runtime::DType::kInt8);
  // a runtime of its own: a mutant that runs may leave tokens behind on its device, as any program may
  runtime::Context ctx(make_device("fsim", vta::build_config()), Dram::global());
  int refused = 0, failed = 0, ran = 0;
  const int64_t extremes[] = {-1, 0, 255, int64_t{1} << 31, (int64_t{1} << 32) - 1, INT64_MIN, INT64_MAX};
  for (nlohmann::json* at : ints) {
    const nlohmann::json original = *at;
    for (const int64_t v : extremes) {
      *at = v;  // one integer changed at a time; the others as built
      const std::string mutant = j.dump();
      *at = original;
      std::optional<Module> m;
      try {
        m.emplace(Module::from_json(mutant, "mutant"));
      } catch (const ModuleError&) {
        ++refused;
        continue;
      }
      try {
        m->call(ctx, {da.handle(), dw.handle(), dr.handle()});
        ++ran;
      } catch (const std::exception&) {
        ++failed;
      }
    }
  }
  std::printf("%zu integers x %zu values: %d refused, %d failed with an exception, %d ran\n", n, std::size(extremes),
              refused, failed, ran);
  EXPECT_GT(refused, 0);
  EXPECT_GT(failed, 0);
}

// A sum's initial value is checked where the sum is written: its type must be the body's, and it is
// one value per output element (it cannot use a reduction axis). One the accelerator cannot start
// from (a tensor in DRAM, not an accumulator tensor at the same element) is named when building.
TEST(CompilerErrors, ASumsInitialValueIsChecked) {
  SmallGemm g;  // its inputs, buffers and reduction axes; a sum of its own over them
  const Env& env = g.env;
  Tensor start = placeholder(g.res_gem->shape, "start", DType::kInt32);
  auto product = [&](const Indices& i) {
    return cast(DType::kInt32, read(g.data_buf, {i[0], g.ic.var, i[2], g.ic_tns.var})) *
           cast(DType::kInt32, read(g.weight_buf, {i[1], g.ic.var, i[3], g.ic_tns.var}));
  };
  auto error = [&](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const ScheduleError& e) {
      return e.what();
    }
    return "";
  };
  const std::string wrong_type = error([&] {
    compute(
        start->shape,
        [&](const Indices& i) {
          return sum(product(i), {g.ic, g.ic_tns}, cast(DType::kInt8, start(i[0], i[1], i[2], i[3])));
        },
        "s");
  });
  EXPECT_NE(wrong_type.find("the initial value cast(int8, start["), std::string::npos) << wrong_type;
  EXPECT_NE(wrong_type.find("int8"), std::string::npos) << wrong_type;
  const std::string uses_axis = error([&] {
    compute(
        start->shape,
        [&](const Indices& i) {
          return sum(product(i), {g.ic, g.ic_tns}, start(i[0], g.ic.var, i[2], i[3]));
        },
        "s");
  });
  EXPECT_NE(uses_axis.find("uses a reduction axis"), std::string::npos) << uses_axis;
  // from a DRAM tensor: the initialisation is a host copy nothing maps to the accelerator
  Tensor gem = compute(
      start->shape, {"bo", "co", "bi", "ci"},
      [&](const Indices& i) {
        return sum(product(i), {g.ic, g.ic_tns}, start(i[0], i[1], i[2], i[3]));
      },
      "gem");
  Tensor res = compute(
      gem->shape, [&](const Indices& i) { return cast(DType::kInt8, gem(i[0], i[1], i[2], i[3])); }, "res");
  Schedule s = create_schedule(res);
  s[gem].set_scope(env.acc_scope);
  s[gem].compute_at(s[res], res->op->axis[0]);
  s[g.data_buf].set_scope(env.inp_scope);
  s[g.weight_buf].set_scope(env.wgt_scope);
  for (const Tensor& t : {g.data_buf, g.weight_buf}) s[t].pragma(t->op->axis[0], env.dma_copy);
  const auto& gx = gem->op->axis;
  s[gem].reorder({gx[0], gx[1], g.ic, gx[2], gx[3], g.ic_tns});
  s[gem].tensorize(gx[2], "gemm");
  s[res].pragma(res->op->axis[1], env.dma_copy);
  const std::string dram = error([&] { build(s, {g.data, g.weight, start, res}, env); });
  EXPECT_NE(dram.find("gem"), std::string::npos) << dram;
  EXPECT_NE(dram.find("not mapped to the accelerator"), std::string::npos) << dram;
}

}  // namespace
}  // namespace vta::compiler
