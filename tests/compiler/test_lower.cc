// The compiler's first layer: the tensor-expression DSL, schedules (split, reorder, scope), lowering
// to loop nests, the printer and the reference interpreter. Lowered programs are run by the
// interpreter and compared with plain C++ loops (an independent reference); schedules that only
// reorganise loops must not change a single output.

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <sstream>

#include "vta/compiler/lower.h"
#include "vta/compiler/te.h"
#include "vta/runtime/tensor.h"
#include "vta/workloads/compiled.h"

namespace vta::compiler {
namespace {

constexpr int kBlock = 16;

// The matrix-multiply tutorial's declaration (seed 001) at a small size: batch 1, 64 in, 64 out.
struct Matmul {
  int in_blocks = 4, out_blocks = 4;
  Tensor data = placeholder({1, in_blocks, 1, kBlock}, "data", DType::kInt8);
  Tensor weight = placeholder({out_blocks, in_blocks, kBlock, kBlock}, "weight", DType::kInt8);
  IterVar ic = reduce_axis(in_blocks, "ic");
  IterVar ic_tns = reduce_axis(kBlock, "ic_tns");
  Tensor res_gem = compute(
      {1, out_blocks, 1, kBlock}, {"bo", "co", "bi", "ci"},
      [&](const Indices& i) {
        return sum(cast(DType::kInt32, data(i[0], ic.var, i[2], ic_tns.var)) *
                       cast(DType::kInt32, weight(i[1], ic.var, i[3], ic_tns.var)),
                   {ic, ic_tns});
      },
      "res_gem");
  Tensor res_shr = compute(
      res_gem->shape, [&](const Indices& i) { return res_gem(i[0], i[1], i[2], i[3]) >> 8; }, "res_shr");
  Tensor res_max = compute(
      res_gem->shape, [&](const Indices& i) { return max(res_shr(i[0], i[1], i[2], i[3]), 0); }, "res_max");
  Tensor res_min = compute(
      res_gem->shape, [&](const Indices& i) { return min(res_max(i[0], i[1], i[2], i[3]), 127); }, "res_min");
  Tensor res = compute(
      res_gem->shape, [&](const Indices& i) { return cast(DType::kInt8, res_min(i[0], i[1], i[2], i[3])); }, "res");

  std::vector<int64_t> a, w, out;
  Matmul() {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> d(-128, 127);
    a.resize(size_t(data->elements()));
    w.resize(size_t(weight->elements()));
    for (auto& x : a) x = d(rng);
    for (auto& x : w) x = d(rng);
    out.assign(size_t(res->elements()), 0);
  }
  /// Plain loops: out[co*16+ci] = clip((sum_k a[k] * w[co][k/16][ci][k%16]) >> 8, 0, 127).
  std::vector<int64_t> reference() const {
    std::vector<int64_t> r(out.size());
    for (int co = 0; co < out_blocks; ++co) {
      for (int ci = 0; ci < kBlock; ++ci) {
        int64_t acc = 0;
        for (int k = 0; k < in_blocks * kBlock; ++k) {
          const int wi = ((co * in_blocks + k / kBlock) * kBlock + ci) * kBlock + k % kBlock;
          acc += a[size_t(k)] * w[size_t(wi)];
        }
        const int ri = co * kBlock + ci;
        r[size_t(ri)] = std::min<int64_t>(std::max<int64_t>(acc >> 8, 0), 127);
      }
    }
    return r;
  }
  std::vector<int64_t> run_schedule(const Schedule& s) {
    const Stmt body = lower(s, {data, weight, res});
    out.assign(out.size(), -1);
    run(body, {{data.get(), &a}, {weight.get(), &w}, {res.get(), &out}});
    return out;
  }
};

TEST(CompilerLower, DefaultScheduleOfTheMatmulTutorialComputesTheReference) {
  Matmul m;
  Schedule s = create_schedule(m.res);
  ASSERT_EQ(s.stages().size(), 5u);  // res_gem, res_shr, res_max, res_min, res (placeholders have none)
  EXPECT_EQ(m.run_schedule(s), m.reference());
}

TEST(CompilerLower, BlockingAndReorderDoNotChangeResults) {
  Matmul m;
  Schedule s = create_schedule(m.res);
  // the tutorial's blocking of the output (factor 2 of 4 blocks) and of the reduction
  Stage& out = s[m.res];
  auto [co_o, co_i] = out.split(m.res->op->axis[1], 2);
  out.reorder({co_o, m.res->op->axis[0], co_i});
  Stage& gem = s[m.res_gem];
  auto [ic_o, ic_i] = gem.split(m.ic, 2);
  auto [ci_o, ci_i] = gem.split(m.res_gem->op->axis[3], 4);
  EXPECT_EQ(m.run_schedule(s), m.reference());
  // reduction loops interleaved with data-parallel ones: initialisation gets its own nest
  gem.reorder({ic_o, ci_o});
  const std::string text = to_text(lower(s, {m.data, m.weight, m.res}));
  EXPECT_EQ(m.run_schedule(s), m.reference()) << text;
  EXPECT_NE(text.find("for (ic.outer: int32, 0, 2) {"), std::string::npos) << text;
  EXPECT_NE(text.find("res_gem[0, co.init, 0, ((ci.outer.init*4) + ci.inner.init)] = 0"), std::string::npos) << text;
}

// (rows x cols) int32 inputs A and B, their sum and its ReLU: the two element-wise tests' program
struct AddRelu {
  Tensor a, b, sum, relu;
  AddRelu(int64_t rows, int64_t cols, const std::string& sum_name, const std::string& relu_name)
      : a(placeholder({rows, cols}, "A", DType::kInt32)), b(placeholder({rows, cols}, "B", DType::kInt32)) {
    sum = compute(
        {rows, cols}, [&](const Indices& i) { return a(i[0], i[1]) + b(i[0], i[1]); }, sum_name);
    relu = compute(
        {rows, cols}, [&](const Indices& i) { return max(sum(i[0], i[1]), 0); }, relu_name);
  }
};

TEST(CompilerLower, PrintsTheLoweredProgram) {
  const AddRelu p(2, 3, "T", "C");
  const Tensor &a = p.a, &b = p.b, &t = p.sum, &c = p.relu;
  Schedule s = create_schedule(c);
  s[t].set_scope("local.acc_buffer");
  auto [o, in] = s[c].split(c->op->axis[1], 3);
  (void)in;
  EXPECT_EQ(to_text(lower(s, {a, b, c})),
            "allocate(T: int32, [2, 3]), storage_scope = local.acc_buffer {\n"
            "  for (i0: int32, 0, 2) {\n"
            "    for (i1: int32, 0, 3) {\n"
            "      T[i0, i1] = (A[i0, i1] + B[i0, i1])\n"
            "    }\n"
            "  }\n"
            "  for (i0: int32, 0, 2) {\n"
            "    for (i1.inner: int32, 0, 3) {\n"  // the extent-1 outer loop is simplified away
            "      C[i0, i1.inner] = max(T[i0, i1.inner], 0)\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(CompilerLower, ElementwiseAddThenRelu) {
  const AddRelu p(4, 32, "S", "R");
  const Tensor &a = p.a, &b = p.b, &relu = p.relu;
  std::vector<int64_t> va(128), vb(128), vr(128);
  for (int i = 0; i < 128; ++i) va[size_t(i)] = i - 70, vb[size_t(i)] = (i * 7) % 13 - 6;
  Schedule s = create_schedule(relu);
  s[relu].split(relu->op->axis[1], 8);
  run(lower(s, {a, b, relu}), {{a.get(), &va}, {b.get(), &vb}, {relu.get(), &vr}});
  for (size_t i = 0; i < 128; ++i) EXPECT_EQ(vr[i], std::max<int64_t>(va[i] + vb[i], 0)) << i;
}

// A sum with an initial value (te.sum's init), lowered for the host and interpreted, with the reduction
// split and reordered outside a data axis (so the initialisation gets a nest of its own): init + the
// sum, against plain C++.
TEST(CompilerLower, SumStartsFromItsInitialValue) {
  Tensor a = placeholder({4, 6}, "A", DType::kInt32);
  Tensor c = placeholder({4}, "C", DType::kInt32);
  IterVar k = reduce_axis(6, "k");
  Tensor s_t = compute(
      {4}, [&](const Indices& i) { return sum(a(i[0], k.var), {k}, c(i[0]) * 3); }, "S");
  std::vector<int64_t> va(24), vc(4), vs(4);
  for (int i = 0; i < 24; ++i) va[size_t(i)] = i * 5 - 40;
  for (int i = 0; i < 4; ++i) vc[size_t(i)] = 100 * i - 7;
  for (const bool reorder : {false, true}) {
    Schedule s = create_schedule(s_t);
    if (reorder) {
      auto [ko, ki] = s[s_t].split(k, 2);
      s[s_t].reorder({ko, s_t->op->axis[0], ki});
    }
    run(lower(s, {a, c, s_t}), {{a.get(), &va}, {c.get(), &vc}, {s_t.get(), &vs}});
    for (size_t i = 0; i < 4; ++i) {
      int64_t want = vc[i] * 3;
      for (size_t j = 0; j < 6; ++j) want += va[i * 6 + j];
      EXPECT_EQ(vs[i], want) << "element " << i << (reorder ? ", reordered" : "");
    }
  }
}

TEST(CompilerLower, ScheduleErrorsNameStageAxisAndReason) {
  Matmul m;
  Schedule s = create_schedule(m.res);
  auto expect_error = [](auto&& f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "no error; wanted: " << needle;
    } catch (const ScheduleError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error([&] { s[m.res].split(m.res->op->axis[1], 0); },
               "split on stage res, axis i1: factor 0 must be positive");
  expect_error([&] { s[m.res].split_nparts(m.res->op->axis[1], -2); }, "nparts -2 must be positive");
  expect_error([&] { s[m.res].pragma(m.res->op->axis[1], "dma"); },
               "pragma on stage res, axis i1: unknown pragma \"dma\" (VTA's are dma_copy and alu");
  expect_error([&] { s[m.res_gem].tensorize(m.res_gem->op->axis[2], "gemv"); },
               "tensorize on stage res_gem, axis bi: unknown intrinsic \"gemv\"");
  expect_error([&] { s[m.res].tile(m.res->op->axis[1], m.res->op->axis[1], 2, 2); }, "axis i1 is given twice");
  expect_error([&] { s[m.res].reorder({m.ic}); }, "reorder on stage res: axis ic is not a loop of this stage");
  const auto split = s[m.res].split(m.res->op->axis[3], 4);
  const IterVar& o = split.first;
  expect_error([&] { s[m.res].split(m.res->op->axis[3], 2); }, "axis i3 is not a loop of this stage (already split");
  expect_error([&] { s[m.res].reorder({o, o}); }, "axis i3.outer is given twice");
  expect_error([&] { (void)read(m.data, {m.ic.var}); }, "tensor data has 4 dimensions, read with 1 indices");
  expect_error(
      [&] {
        (void)(read(m.data, {m.ic.var, m.ic.var, m.ic.var, m.ic.var}) + make_int(1));
      },
      "type mismatch: int8 and int32 operands (insert a cast)");
  expect_error([&] { (void)lower(s, {m.data, m.weight}); }, "the output res must be one of the arguments");
  expect_error([&] { (void)s[m.data]; }, "tensor data has no stage in this schedule");
}

// Splits whose factor does not divide the extent (TVM accepts them): the whole iterations as a loop,
// then the shorter last one, through compute_at and bound inference. Each schedule interpreted against
// the plain loops; the factors: a prime, the extent itself, 1, larger than the extent, nparts.
TEST(CompilerLower, InexactSplitsComputeTheReference) {
  struct Case {
    int64_t oc, ci, ic;  // factors of the output blocks (4), the output lanes (16), the reduction (4)
    bool attach;         // the epilogue and the copies computed at the tile's loops (the tutorial's blocking)
  };
  for (const Case c :
       {Case{3, 5, 3, false}, Case{3, 16, 3, true}, Case{4, 7, 1, false}, Case{5, 16, 6, true}, Case{1, 3, 4, true}}) {
    Matmul m;
    Schedule s = create_schedule(m.res);
    auto [oc_o, oc_i] = s[m.res].split(m.res->op->axis[1], c.oc);
    auto [ci_o, ci_i] = s[m.res].split(m.res->op->axis[3], c.ci);
    s[m.res].reorder({oc_o, ci_o, m.res->op->axis[0], oc_i, m.res->op->axis[2], ci_i});
    auto [ic_o, ic_i] = s[m.res_gem].split(m.ic, c.ic);
    const auto& gx = m.res_gem->op->axis;
    s[m.res_gem].reorder({ic_o, gx[0], gx[1], ic_i, gx[2], gx[3], m.ic_tns});
    if (c.attach) {
      for (const Tensor& t : {m.res_gem, m.res_shr, m.res_max, m.res_min}) s[t].compute_at(s[m.res], ci_o);
    }
    const std::string text = to_text(lower(s, {m.data, m.weight, m.res}));
    EXPECT_EQ(m.run_schedule(s), m.reference()) << text;
    EXPECT_EQ(text.find("split_tail"), std::string::npos) << "every last iteration bound to its value\n" << text;
  }
  // nparts as TVM's: 4 blocks in 3 parts are parts of 2, the last one shorter
  Matmul m;
  Schedule s = create_schedule(m.res);
  auto [o, i] = s[m.res].split_nparts(m.res->op->axis[1], 3);
  EXPECT_EQ(o.extent, 2);
  EXPECT_EQ(i.extent, 2);
  EXPECT_EQ(m.run_schedule(s), m.reference());
  // a split of a split's inner loop sees the extent each part gives it (16 = 3 x 5 + 1, then 5 = 2 x 2 + 1)
  Matmul n;
  Schedule t = create_schedule(n.res);
  auto [a, b] = t[n.res].split(n.res->op->axis[3], 5);
  (void)a;
  (void)t[n.res].split(b, 2);
  const std::string text = to_text(lower(t, {n.data, n.weight, n.res}));
  EXPECT_EQ(n.run_schedule(t), n.reference()) << text;
  EXPECT_NE(text.find("for (i3.outer: int32, 0, 3) {"), std::string::npos) << text;
}

// What an inexact split cannot be lowered with is refused naming the stage, the axis and the rule.
TEST(CompilerLower, InexactSplitsThatCannotBeLoweredAreNamed) {
  auto error_of = [](const std::function<void(Matmul&, Schedule&)>& schedule) -> std::string {
    Matmul m;
    Schedule s = create_schedule(m.res);
    schedule(m, s);
    try {
      (void)lower(s, {m.data, m.weight, m.res});
    } catch (const ScheduleError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string thread = error_of([](Matmul& m, Schedule& s) {
    auto [o, i] = s[m.res].split(m.res->op->axis[1], 3);
    (void)i;
    s[m.res].bind(o, "cthread");
  });
  EXPECT_NE(thread.find("split on stage res, axis i1: factor 3 does not divide the extent 4, and loop i1.outer is "
                        "bound to a virtual thread"),
            std::string::npos)
      << thread;
  const std::string outside = error_of([](Matmul& m, Schedule& s) {
    auto [o, i] = s[m.res].split(m.res->op->axis[3], 5);
    s[m.res].reorder({i, o});
  });
  EXPECT_NE(outside.find("loop i3.inner of its inner part is outside its outer loop i3.outer"), std::string::npos)
      << outside;
  const std::string again = error_of([](Matmul& m, Schedule& s) {
    auto [o, i] = s[m.res].split(m.res->op->axis[3], 5);
    (void)i;
    (void)s[m.res].split(o, 2);
  });
  EXPECT_NE(again.find("its outer loop i3.outer is split again"), std::string::npos) << again;
}

// The tutorial's declaration at the test's small size (Matmul's blocks).
tutorials::MatmulDeclaration small_tutorial_matmul(const Env& env, const Matmul& m) {
  tutorials::MatmulShape shape;
  shape.in_channels = m.in_blocks * kBlock;
  shape.out_channels = m.out_blocks * kBlock;
  return tutorials::declare_matrix_multiply(env, shape);
}

// The tutorial's blocking at the small size: the output blocked by 2 of its channel blocks with the
// epilogue computed inside oc_out, the reduction blocked by 2 with the copies computed inside ic_out.
void block_as_the_tutorial(Schedule& s, const tutorials::MatmulDeclaration& d) {
  const auto& ax = d.res->op->axis;
  auto [b_out, b_inn] = s[d.res].split(ax[0], 1);
  auto [oc_out, oc_inn] = s[d.res].split(ax[1], 2);
  s[d.res].reorder({b_out, oc_out, b_inn, oc_inn});
  for (const Tensor& t : {d.res_gem, d.res_shr, d.res_max, d.res_min}) s[t].compute_at(s[d.res], oc_out);
  const auto& gx = d.res_gem->op->axis;
  auto [ic_out, ic_inn] = s[d.res_gem].split(d.ic, 2);
  s[d.res_gem].reorder({ic_out, gx[0], gx[1], ic_inn, gx[2], gx[3], d.ic_tns});
  s[d.data_buf].compute_at(s[d.res_gem], ic_out);
  s[d.weight_buf].compute_at(s[d.res_gem], ic_out);
}

// The tutorial's blocking step by step (seed 001, "blocking the computation" and the copy stages of
// "lowering copies to DMA transfers"), at the small size: the output blocked by 2 of its 4 channel
// blocks, the intermediate stages computed inside oc_out, the reduction blocked, and the copies of
// data and weight computed inside ic_out.
TEST(CompilerLower, TutorialBlockingWithComputeAt) {
  Matmul m;  // (its inputs and reference; the computation is the tutorial's own declaration)
  const Env env(Config::default_config());
  const tutorials::MatmulDeclaration d = small_tutorial_matmul(env, m);
  const Tensor& res = d.res;

  Schedule s = create_schedule(res);
  ASSERT_EQ(s.stages().size(), 7u);
  block_as_the_tutorial(s, d);
  for (const Tensor& t : {d.data_buf, d.weight_buf, d.res_gem, d.res_shr, d.res_max, d.res_min}) {
    s[t].set_scope("local.sram");
  }

  const Stmt body = lower(s, {d.data, d.weight, res});
  const std::string text = to_text(body);
  std::vector<int64_t> out(size_t(res->elements()), -1);
  run(body, {{d.data.get(), &m.a}, {d.weight.get(), &m.w}, {res.get(), &out}});
  EXPECT_EQ(out, m.reference()) << text;
  // the structure the tutorial prints: per output block, init, then per reduction block the copies of
  // exactly the needed region (2 of 4 input blocks, 2x2 weight blocks), the GEMM, then the epilogue
  for (const char* line :
       {"for (i1.outer: int32, 0, 2) {", "for (co.init: int32, 0, 2) {", "for (ic.outer: int32, 0, 2) {",
        // region buffers, indexed from the region's start
        "allocate(data_buf: int8, [1, 2, 1, 16]), storage_scope = local.sram {",
        "allocate(weight_buf: int8, [2, 2, 16, 16]), storage_scope = local.sram {",
        "allocate(res_gem: int32, [1, 2, 1, 16]), storage_scope = local.sram {",
        "data_buf[0, i1, 0, i3] = data[0, ((ic.outer*2) + i1), 0, i3]",
        "weight_buf[i0, i1, i2, i3] = weight[((i1.outer*2) + i0), ((ic.outer*2) + i1), i2, i3]",
        "res_gem[0, co, 0, ci] = (res_gem[0, co, 0, ci] + (cast(int32, data_buf[0, ic.inner, 0, ic_tns])",
        "res_shr[0, i1, 0, i3] = @tir.shift_right(res_gem[0, i1, 0, i3], 8, dtype=int32)"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "\n" << text;
  }
  // region sizes: the weight copy runs over 2 x 2 x 16 x 16 elements inside each (oc_out, ic_out)
  std::string flat;
  for (char ch : text) {
    if (ch != ' ' && ch != '\n') flat += ch;
  }
  EXPECT_NE(flat.find("for(i0:int32,0,2){for(i1:int32,0,2){for(i2:int32,0,16){for(i3:int32,0,16){weight_buf["),
            std::string::npos)
      << text;
}

TEST(CompilerLower, ComputeAtErrors) {
  Matmul m;
  Schedule s = create_schedule(m.res);
  // res_shr inside res, but res_max (its consumer) stays at the root: not the same loop
  auto [o, i] = s[m.res].split(m.res->op->axis[1], 2);
  (void)i;
  s[m.res_shr].compute_at(s[m.res], o);
  try {
    (void)lower(s, {m.data, m.weight, m.res});
    ADD_FAILURE() << "no error";
  } catch (const ScheduleError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "stage res_shr is read by stage res_max, which is not computed inside the same loop"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(s[m.res].compute_at(s[m.res], o), ScheduleError);
  EXPECT_THROW(s[m.res_max].compute_at(s[m.res], m.ic), ScheduleError);
}

// The 2D convolution tutorial's declaration (seed 002) at a small size: NCHWnc layout, zero padding 1,
// stride 2, 3x3 kernel, 2 input and 2 output channel blocks, 8x8 input -> 4x4 output. Blocked like
// the tutorial: output rows split, the convolution and its epilogue computed per row block, the
// reduction over input-channel blocks split, and the padded input computed inside it (a halo of
// padded rows around each block: bound inference through the stride).
TEST(CompilerLower, ConvolutionWithPaddingStrideAndBlocking) {
  constexpr int64_t kH = 8, kK = 3, kP = 1, kS = 2, kOh = (kH + 2 * kP - kK) / kS + 1, kCi = 2, kCo = 2;
  const Env env(Config::default_config());
  tutorials::ConvShape shape;
  shape.height = shape.width = kH, shape.in_channels = kCi * kBlock, shape.out_channels = kCo * kBlock;
  shape.kernel = kK, shape.pad = kP, shape.stride = kS;
  const tutorials::ConvDeclaration conv = tutorials::declare_convolution(env, shape);
  const Tensor &data = conv.data, &kernel = conv.kernel, &data_buf = conv.data_buf, &kernel_buf = conv.kernel_buf;
  const Tensor &res_conv = conv.res_conv, &shr = conv.res_shr, &mx = conv.res_max, &mn = conv.res_min, &res = conv.res;
  const IterVar &ic = conv.ic, &dy = conv.dy, &dx = conv.dx, &ic_tns = conv.ic_tns;

  // NCHW input and OIHW kernel, packed into the declaration's layouts; the expected result is the
  // runtime's plain convolution with the tutorial's epilogue (>> 8, clip to [0, 127]), packed alike
  namespace rt = vta::runtime;
  const int ci = kCi * kBlock, co = kCo * kBlock;  // channels
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> x8(size_t(ci * kH * kH)), w8(size_t(co * ci * kK * kK));
  for (auto& v : x8) v = int8_t(d(rng));
  for (auto& v : w8) v = int8_t(d(rng));
  auto widen = [](const std::vector<int8_t>& v) { return std::vector<int64_t>(v.begin(), v.end()); };
  std::vector<int64_t> a = widen(rt::pack_nchw(x8, 1, ci, kH, kH, 1, kBlock));
  std::vector<int64_t> w = widen(rt::pack_oihw(w8, co, ci, kK, kK, kBlock, kBlock));
  const std::vector<int64_t> want =
      widen(rt::pack_nchw(rt::shift_clip(rt::conv2d_reference(x8, w8, 1, ci, kH, kH, co, kK, kK, kP, kS), 8, 0, 127), 1,
                          co, kOh, kOh, 1, kBlock));
  ASSERT_EQ(a.size(), size_t(data->elements()));
  ASSERT_EQ(w.size(), size_t(kernel->elements()));
  ASSERT_EQ(want.size(), size_t(res->elements()));
  auto run_it = [&](const Schedule& s) {
    std::vector<int64_t> out(want.size(), -1), flat_out(want.size(), -2);
    const Stmt body = lower(s, {data, kernel, res});
    run(body, {{data.get(), &a}, {kernel.get(), &w}, {res.get(), &out}});
    LowerOptions o;
    o.flatten = true;
    run(lower(s, {data, kernel, res}, o), {{data.get(), &a}, {kernel.get(), &w}, {res.get(), &flat_out}});
    EXPECT_EQ(flat_out, out) << "flattening changed the results";
    return std::make_pair(out, to_text(body));
  };
  {
    Schedule s = create_schedule(res);
    EXPECT_EQ(run_it(s).first, want);
  }
  Schedule s = create_schedule(res);
  const auto& rx = res->op->axis;
  auto [h_out, h_inn] = s[res].split(rx[2], 2);
  s[res].reorder({rx[0], rx[1], h_out, rx[3], h_inn});
  for (const Tensor& t : {res_conv, shr, mx, mn}) s[t].compute_at(s[res], h_out);
  auto [ic_out, ic_inn] = s[res_conv].split(ic, 1);
  const auto& cx = res_conv->op->axis;
  s[res_conv].reorder({ic_out, cx[0], cx[1], cx[2], cx[3], ic_inn, dy, dx, cx[4], cx[5], ic_tns});
  s[data_buf].compute_at(s[res_conv], ic_out);
  s[kernel_buf].compute_at(s[res_conv], ic_out);
  const auto [out, text] = run_it(s);
  EXPECT_EQ(out, want) << text;
  // the padded input block: 5 rows ((2 - 1) * stride + 3) from row 4 * h_out, and the 9 columns read
  // ((4 - 1) * stride + 3; the last padded column is never read)
  std::string flat;
  for (char ch : text) {
    if (ch != ' ' && ch != '\n') flat += ch;
  }
  EXPECT_NE(flat.find("allocate(data_buf:int8,[1,1,5,9,1,16])"), std::string::npos) << text;

  // The same schedule in the accelerator's scopes with DMA copies: the padded input block becomes
  // one padded 2D load whose pads depend on the row block (top block: one padded row, others none).
  s[data_buf].set_scope(env.inp_scope);
  s[kernel_buf].set_scope(env.wgt_scope);
  for (const Tensor& t : {res_conv, shr, mx, mn}) s[t].set_scope(env.acc_scope);
  s[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
  s[kernel_buf].pragma(kernel_buf->op->axis[0], env.dma_copy);
  s[res].pragma(rx[4], env.dma_copy);
  LowerOptions o;
  o.env = &env;
  const Stmt dma = lower(s, {data, kernel, res}, o);
  const std::string dma_text = to_text(dma);
  std::vector<int64_t> dma_out(want.size(), -1);
  run(dma, {{data.get(), &a}, {kernel.get(), &w}, {res.get(), &dma_out}});
  EXPECT_EQ(dma_out, want) << dma_text;
  EXPECT_NE(dma_text.find("@tir.call_extern(\"VTALoadBuffer2D\", data, "), std::string::npos) << dma_text;
  // stride 8, x: one padded column before the 8 read, none after; y: pads computed from the block (the
  // ranges of i2.outer decide that no block reaches past the bottom edge: that pad is 0)
  EXPECT_NE(
      dma_text.find("((((ic.outer*64) + (i2.outer*32)) + (max((1 - (i2.outer*4)), 0)*8)) - 8), 8, "
                    "(5 - max((1 - (i2.outer*4)), 0)), 8, 1, max((1 - (i2.outer*4)), 0), 0, 0, 0, 2, dtype=int32)"),
      std::string::npos)
      << dma_text;
  EXPECT_NE(flat.find("for(i2:int32,0,5){for(i3:int32,0,9){for(i5:int32,0,16){data_buf[0,0,i2,i3,0,i5]="
                      "@tir.if_then_else("),
            std::string::npos)
      << text;
}

TEST(CompilerLower, SramCapacityIsChecked) {
  const Config cfg = Config::default_config();
  const Env env(cfg);
  EXPECT_EQ(env.BATCH, 1);
  EXPECT_EQ(env.BLOCK_IN, 16);
  EXPECT_EQ(env.capacity(env.inp_scope), 32768);
  EXPECT_EQ(env.capacity(env.wgt_scope), 262144);
  EXPECT_EQ(env.capacity(env.acc_scope), 131072);
  EXPECT_EQ(env.capacity("global"), 0);
  // the whole 1024x1024 weight (1 MiB) in the weight SRAM: refused, with the stage and the sizes
  Tensor w = placeholder({64, 64, 16, 16}, "weight", DType::kInt8);
  Tensor wb = compute(
      w->shape, [&](const Indices& i) { return w(i[0], i[1], i[2], i[3]); }, "weight_buf");
  Tensor out = compute(
      w->shape, [&](const Indices& i) { return wb(i[0], i[1], i[2], i[3]); }, "out");
  Schedule s = create_schedule(out);
  s[wb].set_scope(env.wgt_scope);
  try {
    (void)lower(s, {w, out}, &env);
    ADD_FAILURE() << "no error";
  } catch (const ScheduleError& e) {
    EXPECT_NE(std::string(e.what()).find("stage weight_buf: its buffer [64, 64, 16, 16] of 1048576 bytes does not fit "
                                         "the local.wgt_buffer SRAM of 262144 bytes"),
              std::string::npos)
        << e.what();
  }
  // blocked (16 of 64 output blocks at a time): fits
  auto [o, i] = s[out].split(out->op->axis[0], 16);
  (void)i;
  s[wb].compute_at(s[out], o);
  EXPECT_NO_THROW((void)lower(s, {w, out}, &env));
}

TEST(CompilerLower, FlattenAndPassLog) {
  Matmul m;
  Schedule s = create_schedule(m.res);
  std::ostringstream log;
  LowerOptions o;
  o.flatten = true;
  o.log = &log;
  const Stmt body = lower(s, {m.data, m.weight, m.res}, o);
  const std::string text = to_text(body);
  // the seeds' flattened form of the default schedule
  EXPECT_NE(text.find("res_gem[((co*16) + ci)] = 0"), std::string::npos) << text;
  EXPECT_NE(text.find("weight[((((co*1024) + (ic*256)) + (ci*16)) + ic_tns)]"), std::string::npos) << text;
  for (const char* pass :
       {"// after schedule_ops", "// after rebase_regions", "// after simplify", "// after flatten"}) {
    EXPECT_NE(log.str().find(pass), std::string::npos) << pass;
  }
  std::vector<int64_t> out(m.out.size(), -1);
  run(body, {{m.data.get(), &m.a}, {m.weight.get(), &m.w}, {m.res.get(), &out}});
  EXPECT_EQ(out, m.reference());
}

TEST(CompilerLower, PragmasTensorizeAndVirtualThreadsAnnotateLoops) {
  Matmul m;
  Schedule s = create_schedule(m.res);
  const auto& ax = m.res->op->axis;
  auto [co_o, co_i] = s[m.res].split(ax[1], 2);
  s[m.res].bind(co_o, "cthread");
  s[m.res].pragma(ax[2], "dma_copy");
  s[m.res_gem].tensorize(m.res_gem->op->axis[2], "gemm");
  s[m.res_shr].pragma(m.res_shr->op->axis[0], "alu");
  const Stmt body = lower(s, {m.data, m.weight, m.res});
  const std::string text = to_text(body);
  for (const char* line : {"attr [i1.outer] \"virtual_thread\" = 1 {", "attr [i2] \"pragma_dma_copy\" = 1 {",
                           "attr [bi] \"tensorize_gemm\" = 1 {", "attr [i0] \"pragma_alu\" = 1 {"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "\n" << text;
  }
  EXPECT_EQ(m.run_schedule(s), m.reference()) << "annotations do not change the loop nest's meaning";
  EXPECT_THROW(s[m.res].bind(co_i, "threadIdx.x"), ScheduleError);
  EXPECT_THROW(s[m.res_gem].tensorize(m.res_gem->op->axis[2], "conv"), ScheduleError);
  EXPECT_THROW(s[m.res].pragma(ax[1], "dma_copy"), ScheduleError) << "i1 was split: not a loop any more";
}

// The tutorial's "lowering copies to DMA transfers" step: the copies become VTALoadBuffer2D /
// VTAStoreBuffer2D with the arguments the seed prints (at the small size), and the program still
// computes the reference.
TEST(CompilerLower, DmaCopiesBecomeTwoDimensionalTransfers) {
  const Env env(Config::default_config());
  Matmul m;
  const tutorials::MatmulDeclaration d = small_tutorial_matmul(env, m);
  const Tensor &data_buf = d.data_buf, &weight_buf = d.weight_buf, &res = d.res;

  Schedule s = create_schedule(res);
  block_as_the_tutorial(s, d);
  s[data_buf].set_scope(env.inp_scope);
  s[weight_buf].set_scope(env.wgt_scope);
  for (const Tensor& t : {d.res_gem, d.res_shr, d.res_max, d.res_min}) s[t].set_scope(env.acc_scope);
  s[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
  s[weight_buf].pragma(weight_buf->op->axis[0], env.dma_copy);
  s[res].pragma(res->op->axis[2], env.dma_copy);

  LowerOptions o;
  o.env = &env;
  const Stmt body = lower(s, {d.data, d.weight, res}, o);
  const std::string text = to_text(body);
  std::vector<int64_t> out(size_t(res->elements()), -1);
  run(body, {{d.data.get(), &m.a}, {d.weight.get(), &m.w}, {res.get(), &out}});
  EXPECT_EQ(out, m.reference()) << text;
  // seed 001 prints (at 1024 x 1024): VTALoadBuffer2D(data, ic.outer*16, 16, 1, 16, 0, 0, 0, 0, 0, 2),
  // VTALoadBuffer2D(weight, i1.outer*1024 + ic.outer*16, 16, 16, 64, 0, 0, 0, 0, 0, 1),
  // VTAStoreBuffer2D(i1.inner, 4, res, i1.outer*16 + i1.inner, 1, 1, 1)
  for (const char* line :
       {"@tir.call_extern(\"VTALoadBuffer2D\", data, (ic.outer*2), 2, 1, 2, 0, 0, 0, 0, 0, 2, dtype=int32)",
        "@tir.call_extern(\"VTALoadBuffer2D\", weight, ((i1.outer*8) + (ic.outer*2)), 2, 2, 4, 0, 0, 0, 0, 0, 1, "
        "dtype=int32)",
        // (res_min is the fourth accumulator buffer of 2 elements at this step: the ALU stages are not
        // in place yet)
        "@tir.call_extern(\"VTAStoreBuffer2D\", (i1.inner + 6), 4, res, ((i1.outer*2) + i1.inner), 1, 1, 1, "
        "dtype=int32)"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "\n" << text;
  }
  // a copy the DMA cannot do is refused with the loop and the reason
  Schedule bad = create_schedule(res);
  bad[data_buf].set_scope(env.inp_scope);
  bad[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
  auto [p, q] = bad[data_buf].split(data_buf->op->axis[3], 8);  // half elements
  (void)p, (void)q;
  EXPECT_THROW((void)lower(bad, {d.data, d.weight, res}, o), ScheduleError);
}

}  // namespace
}  // namespace vta::compiler
