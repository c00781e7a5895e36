// Models from ONNX: the importer per operator against plain float loops written here, its refusals
// (the malformed corpus in onnx_malformed/), ONNX's own node tests (Debian's libonnx-testdata), the
// cross-layer equalization, and quantized models run on VTA against their int8 reference.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>

#include "test_paths.h"
#include "vta/driver/build_config.h"
#include "vta/network/executor.h"
#include "vta/network/onnx.h"
#include "vta/network/reference.h"
#include "vta/network/resnet18.h"
#include "weight_rounding.h"

namespace vta::network {
namespace {

namespace fs = std::filesystem;

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A small ONNX model written with the protobuf API: one float input, initializers, nodes, one output.
class ModelBuilder {
 public:
  explicit ModelBuilder(const std::vector<int64_t>& input_shape, int opset = 13) {
    m_.set_ir_version(8);
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g_ = m_.mutable_graph();
    g_->set_name("test");
    auto* in = g_->add_input();
    in->set_name("x");
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
    for (const int64_t d : input_shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  std::string constant(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    for (const int64_t d : dims) t->add_dims(d);
    for (const float x : v) t->add_float_data(x);
    return name;
  }
  std::string int64s(const std::string& name, const std::vector<int64_t>& v) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    t->add_dims(int64_t(v.size()));
    for (const int64_t x : v) t->add_int64_data(x);
    return name;
  }
  std::string bytes(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int>& v,
                    bool is_unsigned) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(is_unsigned ? onnx::TensorProto_DataType_UINT8 : onnx::TensorProto_DataType_INT8);
    for (const int64_t d : dims) t->add_dims(d);
    for (const int x : v) t->add_int32_data(x);
    return name;
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output) {
    auto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(output);
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(output);
    return *n;
  }
  // A 2x2 pool of stride 2 (op MaxPool or AveragePool), the down-sampling of the models below.
  std::string pool2x2(const std::string& op, const std::string& input, const std::string& output) {
    auto& n = node(op, {input}, output);
    ints(n, "kernel_shape", {2, 2});
    ints(n, "strides", {2, 2});
    return output;
  }
  static void ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (const int64_t x : v) a->add_ints(x);
  }
  static void integer(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(v);
  }
  static void real(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    a->set_f(v);
  }
  FloatGraph import(const std::string& output) { return import(std::vector<std::string>{output}); }
  FloatGraph import(const std::vector<std::string>& outputs) {
    for (const auto& o : outputs) g_->add_output()->set_name(o);
    return import_onnx_bytes(m_.SerializeAsString(), "test.onnx");
  }

 private:
  onnx::ModelProto m_;
  onnx::GraphProto* g_;
};

// Plain float loops: NCHW x OIHW convolution (groups), max pool, dense (M, K).
std::vector<float> conv_loops(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                              int64_t c, int64_t h, int64_t width, int64_t o, int64_t k, int64_t s, int64_t p,
                              int64_t groups) {
  const int64_t oh = (h + 2 * p - k) / s + 1, ow = (width + 2 * p - k) / s + 1, cg = c / groups, og = o / groups;
  std::vector<float> y(size_t(o * oh * ow));
  for (int64_t f = 0; f < o; ++f) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        double sum = b.empty() ? 0.0 : double(b[size_t(f)]);
        for (int64_t ch = 0; ch < cg; ++ch) {
          for (int64_t dy = 0; dy < k; ++dy) {
            for (int64_t dx = 0; dx < k; ++dx) {
              const int64_t yy = i * s + dy - p, xx = j * s + dx - p;
              if (yy < 0 || yy >= h || xx < 0 || xx >= width) continue;
              sum += double(x[size_t(((f / og) * cg + ch) * h * width + yy * width + xx)]) *
                     double(w[size_t(((f * cg + ch) * k + dy) * k + dx)]);
            }
          }
        }
        y[size_t((f * oh + i) * ow + j)] = float(sum);
      }
    }
  }
  return y;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(double(got[i]), double(want[i]), 1e-4 * (1 + std::fabs(double(want[i])))) << what << " element " << i;
  }
}

// `count` random inputs of `size` values each (seeds `seed`, `seed` + 1, ...), uniform in [lo, hi]: a
// calibration set.
std::vector<std::vector<float>> random_inputs(uint32_t count, size_t size, uint32_t seed, float lo = -1, float hi = 1) {
  std::vector<std::vector<float>> v;
  for (uint32_t s = 0; s < count; ++s) v.push_back(random_floats(size, seed + s, lo, hi));
  return v;
}

// How far an int8 network's dequantized output is from the float one: the error's norm over the
// reference's.
double relative_rms(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    err += std::pow(double(got[i]) - double(want[i]), 2), norm += std::pow(double(want[i]), 2);
  }
  return std::sqrt(err / norm);
}

// Runs `runs` random inputs of `size` values (seeds `seed`, `seed` + 1, ...) through the executor:
// every VTA step equal to the int8 reference, the dequantized output within 10 % relative RMS of the
// float graph's.
void expect_verified_and_near_float(Executor& ex, const QuantizedModel& q, const FloatGraph& g, size_t size,
                                    uint32_t seed, uint32_t runs) {
  for (uint32_t s = seed; s < seed + runs; ++s) {
    const auto xf = random_floats(size, s);
    const auto in = q.quantize_input(xf);
    const Values ref = run_reference(q.graph, in);
    const NetworkRun r = ex.run(in, {}, &ref);
    EXPECT_TRUE(r.verified()) << "input " << s;
    EXPECT_LT(relative_rms(q.dequantize_output(r.output), run_float(g, xf).at(g.output)), 0.1) << "input " << s;
  }
}

// A convolution `name` of `x` (`in` to `out` channels, k x k, `groups`, padded by k / 2) with weights
// uniform in +-1.5 / sqrt(fan-in) and a bias uniform in +-bias_bound, each drawn from ++seed: a
// trained network's folded batch norms, roughly.
std::string random_conv(ModelBuilder& b, const std::string& x, int64_t in, int64_t out, int64_t k, int64_t groups,
                        const std::string& name, uint32_t& seed, float bias_bound) {
  const int64_t per = in / groups;
  const float bound = 1.5f / std::sqrt(float(per * k * k));
  auto& n = b.node(
      "Conv",
      {x, b.constant(name + ".w", {out, per, k, k}, random_floats(size_t(out * per * k * k), ++seed, -bound, bound)),
       b.constant(name + ".b", {out}, random_floats(size_t(out), ++seed, -bias_bound, bias_bound))},
      name);
  ModelBuilder::ints(n, "kernel_shape", {k, k});
  ModelBuilder::ints(n, "pads", {k / 2, k / 2, k / 2, k / 2});
  ModelBuilder::integer(n, "group", groups);
  return name;
}

TEST(OnnxImport, ConvBatchNormReluPoolGemmMatchPlainLoops) {
  ModelBuilder b({1, 4, 6, 6});
  const auto w = random_floats(8 * 4 * 9, 1), bias = random_floats(8, 2);
  const auto scale = random_floats(8, 3, 0.5f, 2), beta = random_floats(8, 4), mean = random_floats(8, 5),
             var = random_floats(8, 6, 0.1f, 2);
  auto& conv = b.node("Conv", {"x", b.constant("w", {8, 4, 3, 3}, w), b.constant("b", {8}, bias)}, "conv");
  ModelBuilder::ints(conv, "pads", {1, 1, 1, 1});
  ModelBuilder::ints(conv, "strides", {1, 1});
  auto& bn = b.node("BatchNormalization",
                    {"conv", b.constant("s", {8}, scale), b.constant("beta", {8}, beta), b.constant("m", {8}, mean),
                     b.constant("v", {8}, var)},
                    "bn");
  ModelBuilder::real(bn, "epsilon", 1e-3f);
  b.node("Relu", {"bn"}, "relu");
  b.pool2x2("MaxPool", "relu", "pool");
  b.node("Flatten", {"pool"}, "flat");
  const auto fc = random_floats(5 * 72, 7), fcb = random_floats(5, 8);
  auto& gemm = b.node("Gemm", {"flat", b.constant("fc", {5, 72}, fc), b.constant("fcb", {5}, fcb)}, "gemm");
  ModelBuilder::integer(gemm, "transB", 1);
  ModelBuilder::real(gemm, "alpha", 0.5f);
  const FloatGraph g = b.import("gemm");

  std::vector<std::string> kinds;
  for (const auto& op : g.ops) kinds.emplace_back(to_string(op.kind));
  EXPECT_EQ(kinds, (std::vector<std::string>{"conv", "relu", "max_pool", "flatten", "dense"}))
      << "the batch norm is folded into the convolution";
  EXPECT_EQ(g.shape("gemm"), (std::vector<int64_t>{1, 5}));

  const auto x = random_floats(4 * 36, 9);
  std::vector<float> want = conv_loops(x, w, bias, 4, 6, 6, 8, 3, 1, 1, 1);
  for (size_t i = 0; i < want.size(); ++i) {
    const size_t c = i / 36;
    want[i] =
        std::max(0.f, float((double(want[i]) - double(mean[c])) / std::sqrt(double(var[c]) + 1e-3) * double(scale[c]) +
                            double(beta[c])));
  }
  std::vector<float> pooled(8 * 9);
  for (size_t c = 0; c < 8; ++c) {
    for (size_t i = 0; i < 3; ++i) {
      for (size_t j = 0; j < 3; ++j) {
        float m = -INFINITY;
        for (size_t dy = 0; dy < 2; ++dy) {
          for (size_t dx = 0; dx < 2; ++dx) m = std::max(m, want[c * 36 + (2 * i + dy) * 6 + 2 * j + dx]);
        }
        pooled[c * 9 + i * 3 + j] = m;
      }
    }
  }
  std::vector<float> logits(5);
  for (size_t o = 0; o < 5; ++o) {
    double s = double(fcb[o]);
    for (size_t k = 0; k < 72; ++k) s += 0.5 * double(fc[o * 72 + k]) * double(pooled[k]);
    logits[o] = float(s);
  }
  expect_close(run_float(g, x).at("gemm"), logits, "conv + bn + relu + pool + gemm");
}

// The float reference's convolution (sgemm on the windows) against a plain loop, on a layer whose windows
// exceed the reference's buffer (2304 x 4096 values): it runs in bands of output rows, padded, strided,
// in two groups.
TEST(FloatReference, LargeConvolutionInBandsMatchesPlainLoops) {
  FloatGraph g;
  g.name = "bands";
  g.input = "x";
  g.output = "y";
  const int64_t c = 512, h = 64, wd = 64, o = 4, k = 3, groups = 2, cg = c / groups, og = o / groups;
  for (const int stride : {1, 2}) {
    const int64_t oh = (h + 2 - k) / stride + 1, ow = (wd + 2 - k) / stride + 1;
    g.shapes = {{"x", {1, c, h, wd}}, {"y", {1, o, oh, ow}}};
    g.constants = {{"w", {{o, cg, k, k}, random_floats(size_t(o * cg * k * k), 7)}}, {"b", {{o}, random_floats(4, 8)}}};
    FloatOp conv;
    conv.kind = FloatOpKind::kConv;
    conv.name = "conv";
    conv.inputs = {"x"};
    conv.output = "y";
    conv.weight = "w";
    conv.bias = "b";
    conv.kernel = int(k), conv.stride = stride, conv.pad = 1, conv.groups = int(groups);
    g.ops = {conv};
    const auto x = random_floats(size_t(c * h * wd), 9);
    const auto& w = g.constants.at("w").values;
    std::vector<float> want(size_t(o * oh * ow));
    for (int64_t f = 0; f < o; ++f) {
      for (int64_t yy = 0; yy < oh; ++yy) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          double sum = double(g.constants.at("b").values[size_t(f)]);
          for (int64_t ch = 0; ch < cg; ++ch) {
            for (int64_t dy = 0; dy < k; ++dy) {
              for (int64_t dx = 0; dx < k; ++dx) {
                const int64_t iy = yy * stride + dy - 1, ix = xx * stride + dx - 1;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                sum += double(w[size_t(((f * cg + ch) * k + dy) * k + dx)]) *
                       double(x[size_t(((f / og * cg + ch) * h + iy) * wd + ix)]);
              }
            }
          }
          want[size_t((f * oh + yy) * ow + xx)] = float(sum);
        }
      }
    }
    expect_close(run_float(g, x).at("y"), want, "stride " + std::to_string(stride));
  }
}

TEST(OnnxImport, ResidualClipScaleAveragePoolMatMulSoftmax) {
  ModelBuilder b({1, 2, 4, 4}, 13);
  const auto w = random_floats(2 * 2 * 9, 11);
  auto& conv = b.node("Conv", {"x", b.constant("w", {2, 2, 3, 3}, w)}, "conv");
  ModelBuilder::ints(conv, "pads", {1, 1, 1, 1});
  b.node("Add", {"conv", "x"}, "add");
  b.node("Clip", {"add", b.constant("lo", {}, {0.f}), b.constant("hi", {}, {0.75f})}, "clip");
  b.node("Mul", {"clip", b.constant("two", {}, {2.f})}, "scaled");
  b.node("GlobalAveragePool", {"scaled"}, "gap");
  b.node("Identity", {"gap"}, "same");
  b.node("Reshape", {"same", b.int64s("shape", {1, -1})}, "flat");
  const auto m = random_floats(2 * 3, 12);
  b.node("MatMul", {"flat", b.constant("m", {2, 3}, m)}, "mm");
  b.node("Add", {"mm", b.constant("mb", {3}, {0.5f, -0.5f, 0.25f})}, "logits");
  b.node("Softmax", {"logits"}, "prob");
  const FloatGraph g = b.import("prob");
  EXPECT_TRUE(g.softmax);
  const auto x = random_floats(32, 13);
  std::vector<float> y = conv_loops(x, w, {}, 2, 4, 4, 2, 3, 1, 1, 1);
  std::vector<float> gap(2, 0.f);
  for (size_t i = 0; i < 32; ++i) gap[i / 16] += 2.f * std::clamp(y[i] + x[i], 0.f, 0.75f) / 16.f;
  const std::vector<float> mb{0.5f, -0.5f, 0.25f};
  std::vector<float> logits(3);
  for (size_t j = 0; j < 3; ++j) logits[j] = mb[j] + gap[0] * m[j] + gap[1] * m[3 + j];
  const auto out = run_float(g, x).at(g.output);
  expect_close(out, logits, "residual, clip, scale, pool, matmul + bias");
  const auto p = softmax(out, 1);
  double total = 0;
  for (size_t j = 0; j < 3; ++j) {
    total += double(p[j]);
    EXPECT_EQ(p[j] > p[(j + 1) % 3], logits[j] > logits[(j + 1) % 3]);
  }
  EXPECT_NEAR(total, 1.0, 1e-6);
}

TEST(OnnxImport, StandaloneBatchNormIsADepthwiseConvolution) {
  ModelBuilder b({1, 3, 2, 2});
  b.node("BatchNormalization",
         {"x", b.constant("s", {3}, {1.f, 2.f, 3.f}), b.constant("b", {3}, {0.f, 1.f, -1.f}),
          b.constant("m", {3}, {0.5f, 0.f, 1.f}), b.constant("v", {3}, {1.f, 4.f, 0.25f})},
         "bn");
  const FloatGraph g = b.import("bn");
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].groups, 3);
  const auto x = random_floats(12, 3);
  std::vector<float> want(12);
  const float s[] = {1, 2, 3}, bb[] = {0, 1, -1}, mm[] = {0.5f, 0, 1}, vv[] = {1, 4, 0.25f};
  for (size_t i = 0; i < 12; ++i) {
    const size_t c = i / 4;
    want[i] = float((double(x[i]) - double(mm[c])) / std::sqrt(double(vv[c]) + 1e-5) * double(s[c]) + double(bb[c]));
  }
  expect_close(run_float(g, x).at("bn"), want, "batch norm");
}

// A model quantized by its exporter: QuantizeLinear/DequantizeLinear pairs on activations, int8 weights
// with per-channel scales dequantized, and the same convolution as a QLinearConv; the float reference
// computes the fake quantization (rounding to nearest even, the integer type's clamp), and the model
// quantizes and runs on VTA bit for bit.
TEST(OnnxImport, QuantizedModelsAreReadAsFakeQuantization) {
  const int64_t c = 16, o = 16;
  std::mt19937 rng(5);
  std::vector<int> wq(size_t(o * c * 9));
  for (int& v : wq) v = int(rng() % 255) - 127;
  std::vector<float> wscale(static_cast<size_t>(o));
  for (size_t i = 0; i < wscale.size(); ++i) wscale[i] = 1.f / float(64 << (i % 3));
  for (const bool qlinear : {false, true}) {
    ModelBuilder b({1, c, 6, 6});
    b.node("QuantizeLinear", {"x", b.constant("xs", {}, {1.f / 64}), b.bytes("xz", {}, {0}, false)}, "xq");
    b.constant("ws", {o}, wscale);
    b.bytes("wz", {o}, std::vector<int>(size_t(o), 0), false);
    b.bytes("w", {o, c, 3, 3}, wq, false);
    if (!qlinear) {
      b.node("DequantizeLinear", {"xq", "xs", "xz"}, "xd");
      auto& dq = b.node("DequantizeLinear", {"w", "ws", "wz"}, "wd");
      ModelBuilder::integer(dq, "axis", 0);
      auto& conv = b.node("Conv", {"xd", "wd"}, "conv");
      ModelBuilder::ints(conv, "pads", {1, 1, 1, 1});
      b.node("Relu", {"conv"}, "relu");
      b.node("QuantizeLinear", {"relu", b.constant("ys", {}, {1.f / 16}), b.bytes("yz", {}, {0}, true)}, "yq");
    } else {
      auto& conv = b.node(
          "QLinearConv",
          {"xq", "xs", "xz", "w", "ws", "wz", b.constant("ys", {}, {1.f / 16}), b.bytes("yz", {}, {0}, true)}, "yq");
      ModelBuilder::ints(conv, "pads", {1, 1, 1, 1});
    }
    b.node("DequantizeLinear", {"yq", "ys", "yz"}, "y");
    const FloatGraph g = b.import("y");
    const auto x = random_floats(size_t(c * 36), 6, -1.5f, 1.5f);
    // by hand: x fake-quantized to int8 at 1/64, the dequantized weights, the sum, (ReLU,) the output
    // fake-quantized to uint8 at 1/16 (its clamp at 0 is the ReLU)
    std::vector<float> xf(x.size()), wf(wq.size());
    for (size_t i = 0; i < x.size(); ++i)
      xf[i] = float(std::clamp(std::nearbyint(double(x[i]) * 64), -128.0, 127.0) / 64);
    for (size_t i = 0; i < wq.size(); ++i) wf[i] = float(wq[i]) * wscale[i / (size_t(c) * 9)];
    std::vector<float> want = conv_loops(xf, wf, {}, c, 6, 6, o, 3, 1, 1, 1);
    for (float& v : want) v = float(std::clamp(std::nearbyint(double(v) * 16), 0.0, 255.0) / 16);
    expect_close(run_float(g, x).at(g.output), want, qlinear ? "QLinearConv" : "QDQ");
    const QuantizedModel q = quantize(g, {x}, vta::build_config());
    Executor ex(q.graph, vta::build_config());
    const auto in = q.quantize_input(x);
    const Values ref = run_reference(q.graph, in);
    const NetworkRun r = ex.run(in, {}, &ref);
    EXPECT_TRUE(r.verified());
    EXPECT_EQ(ex.steps()[0].placement, Placement::kVta) << ex.steps()[0].description;
    const auto y = q.dequantize_output(r.output);
    EXPECT_LT(relative_rms(y, want), 0.05) << (qlinear ? "QLinearConv" : "QDQ");
  }
}

// The operators of upsampling networks (U-Net, YOLO): an average pool, a nearest Resize, a channel
// Concat and a ConvTranspose (imported as a convolution over the input with zeros inserted); the
// concatenation and the transposed convolution against plain loops (ONNX's node tests cover the
// others, and their Concat tests feed two graph inputs), the quantized model on VTA bit for bit with
// the average pool, the upsample and the transposed convolution's convolution there.
TEST(OnnxImport, UpsamplingOperatorsQuantizeAndRun) {
  ModelBuilder b({1, 16, 8, 8});
  auto& c1 = b.node("Conv", {"x", b.constant("w1", {16, 16, 3, 3}, random_floats(16 * 16 * 9, 21, -0.1f, 0.1f))}, "c1");
  ModelBuilder::ints(c1, "pads", {1, 1, 1, 1});
  b.node("Relu", {"c1"}, "r1");
  b.pool2x2("AveragePool", "r1", "pool");
  b.node("Resize", {"pool", "", b.constant("scales", {4}, {1, 1, 2, 2})}, "up");
  auto& cat = b.node("Concat", {"up", "r1"}, "cat");
  ModelBuilder::integer(cat, "axis", 1);
  auto& ct = b.node("ConvTranspose",
                    {"cat", b.constant("wt", {32, 16, 3, 3}, random_floats(32 * 16 * 9, 22, -0.1f, 0.1f)),
                     b.constant("bt", {16}, random_floats(16, 23, -0.1f, 0.1f))},
                    "ct");
  ModelBuilder::ints(ct, "strides", {2, 2});
  ModelBuilder::ints(ct, "pads", {1, 1, 1, 1});
  ModelBuilder::ints(ct, "output_padding", {1, 1});
  b.node("Relu", {"ct"}, "out");
  const FloatGraph g = b.import("out");
  EXPECT_EQ(g.shape("ct"), (std::vector<int64_t>{1, 16, 16, 16}));
  const auto x = random_floats(16 * 64, 24, 0, 1);
  const FloatValues v = run_float(g, x, true);
  std::vector<float> cat_want(v.at("up"));
  cat_want.insert(cat_want.end(), v.at("r1").begin(), v.at("r1").end());
  expect_close(v.at("cat"), cat_want, "concat");
  // the transposed convolution by its definition: each input value scatters its kernel
  const auto& wt = g.constants.at("wt").values;
  std::vector<double> ct_want(16 * 256, 0.0);
  for (int64_t i = 0; i < 32; ++i) {
    for (int64_t y = 0; y < 8; ++y) {
      for (int64_t z = 0; z < 8; ++z) {
        for (int64_t o = 0; o < 16; ++o) {
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t oy = y * 2 + ky - 1, ox = z * 2 + kx - 1;
              if (oy < 0 || oy >= 16 || ox < 0 || ox >= 16) continue;
              ct_want[size_t(o * 256 + oy * 16 + ox)] += double(v.at("cat")[size_t(i * 64 + y * 8 + z)]) *
                                                         double(wt[size_t(((i * 16 + o) * 3 + ky) * 3 + kx)]);
            }
          }
        }
      }
    }
  }
  std::vector<float> ct_f(ct_want.size());
  for (size_t i = 0; i < ct_f.size(); ++i) ct_f[i] = float(ct_want[i] + double(g.constants.at("bt").values[i / 256]));
  expect_close(v.at("ct"), ct_f, "conv transpose");

  const Config& cfg = vta::build_config();
  const QuantizedModel q = quantize(g, {x}, cfg);
  Executor ex(q.graph, cfg);
  std::vector<std::string> vta_steps;
  for (const Step& s : ex.steps()) {
    if (s.placement == Placement::kVta) vta_steps.push_back(s.description);
  }
  ASSERT_EQ(vta_steps.size(), 4u)
      << "the first convolution, the average pool, the upsample and the transposed convolution's";
  EXPECT_TRUE(vta_steps[1].starts_with("avg_pool 2x2/2 + ")) << vta_steps[1];
  EXPECT_EQ(vta_steps[2], "upsample 2x2");
  const auto in = q.quantize_input(x);
  const Values ref = run_reference(q.graph, in);
  const NetworkRun r = ex.run(in, {}, &ref);
  EXPECT_TRUE(r.verified());
  const auto y = q.dequantize_output(r.output);
  const auto& f = v.at("out");
  EXPECT_LT(relative_rms(y, f), 0.1);
}

// A model with two outputs, as torch.onnx exports a YOLO with its two detection heads: both imported
// (the first is the graph's output, the other an extra output), both quantized, run on VTA and
// verified step by step, each near the float model's own; with steps at once too. A graph output
// named twice is refused by name.
TEST(OnnxImport, EveryOutputOfAModelIsImportedAndRun) {
  ModelBuilder b({1, 16, 8, 8});
  auto& c1 = b.node("Conv", {"x", b.constant("w1", {16, 16, 3, 3}, random_floats(16 * 16 * 9, 31, -0.1f, 0.1f))}, "c1");
  ModelBuilder::ints(c1, "pads", {1, 1, 1, 1});
  b.node("Relu", {"c1"}, "trunk");
  b.pool2x2("MaxPool", "trunk", "pool");
  b.node("Conv",
         {"pool", b.constant("w2", {16, 16, 1, 1}, random_floats(256, 32, -0.3f, 0.3f)),
          b.constant("b2", {16}, random_floats(16, 33, -0.1f, 0.1f))},
         "coarse");
  b.node("Conv",
         {"trunk", b.constant("w3", {16, 16, 1, 1}, random_floats(256, 34, -0.3f, 0.3f)),
          b.constant("b3", {16}, random_floats(16, 35, -0.1f, 0.1f))},
         "fine");
  const FloatGraph g = b.import(std::vector<std::string>{"coarse", "fine"});
  EXPECT_EQ(g.output, "coarse");
  EXPECT_EQ(g.extra_outputs, std::vector<std::string>{"fine"});
  const Config& cfg = vta::build_config();
  const auto calibration = random_inputs(4, 16 * 64, 36, 0, 1);
  const QuantizedModel q = quantize(g, calibration, cfg);
  ASSERT_EQ(q.graph.extra_outputs().size(), 1u);
  ASSERT_EQ(q.extra_outputs.size(), 1u);
  const std::string fine = q.graph.extra_outputs()[0];
  Executor ex(q.graph, cfg);
  for (uint32_t seed = 40; seed < 43; ++seed) {
    const auto x = random_floats(16 * 64, seed, 0, 1);
    const FloatValues f = run_float(g, x);
    const auto in = q.quantize_input(x);
    const Values ref = run_reference(q.graph, in);
    ASSERT_TRUE(ref.count(fine)) << "the reference keeps every output";
    for (const unsigned jobs : {1U, 2U}) {
      RunOptions o;
      o.jobs = jobs;
      const NetworkRun r = ex.run(in, o, &ref);
      EXPECT_TRUE(r.verified()) << "input " << seed << ", jobs " << jobs;
      ASSERT_EQ(r.extra_outputs.count(fine), 1u);
      EXPECT_EQ(r.extra_outputs.at(fine), ref.at(fine));
      EXPECT_EQ(r.output, ref.at(q.graph.output_name()));
      EXPECT_LT(relative_rms(q.dequantize_output(r.output), f.at("coarse")), 0.1) << "input " << seed;
      EXPECT_LT(relative_rms(q.dequantize_extra_output(0, r.extra_outputs.at(fine)), f.at("fine")), 0.1)
          << "input " << seed;
    }
  }
  ModelBuilder twice({1, 4, 2, 2});
  twice.node("Relu", {"x"}, "y");
  try {
    (void)twice.import(std::vector<std::string>{"y", "y"});
    ADD_FAILURE() << "an output named twice was imported";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("the graph output y is another output's tensor"), std::string::npos)
        << e.what();
  }
}

// Every file of the corpus is refused with the words expected.txt gives, through the file reader.
TEST(OnnxImport, MalformedCorpusIsRefusedByName) {
  const fs::path dir = vta::test::source_path("tests/network/onnx_malformed");
  std::ifstream listing(dir / "expected.txt");
  ASSERT_TRUE(listing) << dir;
  std::string line;
  int files = 0;
  while (std::getline(listing, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(": ");
    const std::string file = line.substr(0, colon), expect = line.substr(colon + 2);
    ++files;
    try {
      const FloatGraph g = import_onnx(dir / file);
      // a model that imports must fail when quantized (its defect is a size the executor cannot take)
      ADD_FAILURE() << file << ": imported (" << g.ops.size() << " operators); expected: " << expect;
    } catch (const ImportError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(expect), std::string::npos) << file << ": " << what;
      EXPECT_NE(what.find(file), std::string::npos) << "the error names the file: " << what;
    }
  }
  EXPECT_GE(files, 30);
}

// Each operator is read in the opsets its rule names and refused by name outside them, and the
// operator table of docs/MODELS.md lists exactly the importer's rules, in their order.
TEST(OnnxImport, OperatorsAreReadInTheirOpsetsOnly) {
  const auto upsample = [](const std::string& op, int opset) {
    ModelBuilder b({1, 4, 2, 2}, opset);
    b.node(op, {"x", b.constant("scales", {4}, {1, 1, 2, 2})}, "y");
    return b.import("y");
  };
  EXPECT_EQ(upsample("Resize", 10).shape("y"), (std::vector<int64_t>{1, 4, 4, 4}));
  EXPECT_EQ(upsample("Upsample", 9).shape("y"), (std::vector<int64_t>{1, 4, 4, 4}));
  const auto refused = [&](const std::string& op, int opset) {
    try {
      upsample(op, opset);
    } catch (const ImportError& e) {
      return std::string(e.what());
    }
    return std::string("imported");
  };
  EXPECT_EQ(refused("Resize", 9),
            "test.onnx: node y (Resize): operator Resize of opset 9 (it is read in opsets 10 to 18)");
  EXPECT_EQ(refused("Upsample", 11),
            "test.onnx: node y (Upsample): operator Upsample of opset 11 (it is read in opsets 7 to 10)");
  EXPECT_EQ(refused("HardSigmoid", 13),
            "test.onnx: node y (HardSigmoid): operator HardSigmoid is not supported (docs/MODELS.md lists what is)");

  std::vector<std::string> documented;  // the first column of the table under "## Supported operators"
  std::ifstream doc(vta::test::source_path("docs/MODELS.md"));
  ASSERT_TRUE(doc);
  bool in_section = false;
  for (std::string line; std::getline(doc, line);) {
    if (line.starts_with("## ")) in_section = line == "## Supported operators";
    if (!in_section || !line.starts_with("| ") || line.starts_with("| ONNX operator")) continue;
    const std::string cell = line.substr(2, line.find(" |", 2) - 2);
    for (size_t at = 0; at < cell.size();) {
      const size_t comma = std::min(cell.find(", ", at), cell.size());
      documented.push_back(cell.substr(at, comma - at));
      at = comma + 2;
    }
  }
  std::vector<std::string> read;
  for (const OnnxOperator& op : onnx_operators()) {
    read.push_back(op.op_type);
    EXPECT_LE(op.since, op.until) << op.op_type;
    EXPECT_EQ(op.until, op.op_type == "Upsample" ? 10 : kLastOnnxOpset) << op.op_type;
  }
  EXPECT_EQ(documented, read);
}

// Calibration sources: the tools' random:N read one way, the same random inputs every time, an
// array's rows checked and limited, and quantize() from a source equal to quantize() from a vector.
TEST(Calibration, SourcesAndTheToolsSpelling) {
  EXPECT_EQ(parse_random_spec("random:8", "--calibration"), 8);
  EXPECT_EQ(parse_random_spec("random:10000", "--calibration"), 10000);
  EXPECT_EQ(parse_random_spec("cal.npy", "--calibration"), std::nullopt);
  for (const char* bad : {"random:0", "random:", "random:10001", "random:5x", "random:-1", "random: 3"}) {
    try {
      parse_random_spec(bad, "--calibration");
      ADD_FAILURE() << bad << " accepted";
    } catch (const ImportError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--calibration ") + bad + ": random:N with N 1 to 10000");
    }
  }

  ModelBuilder b({1, 16, 4, 4});
  b.node("Conv", {"x", b.constant("w", {16, 16, 1, 1}, random_floats(256, 31, -0.5f, 0.5f))}, "c");
  b.node("Relu", {"c"}, "y");
  const FloatGraph g = b.import("y");
  const auto drain = [](CalibrationSource& s) {
    std::vector<std::vector<float>> all;
    while (auto x = s.next()) all.push_back(std::move(*x));
    return all;
  };
  const auto a = drain(*random_calibration(g, 3, 7)), again = drain(*random_calibration(g, 3, 7));
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a, again);
  EXPECT_NE(a[0], a[1]);
  EXPECT_NE(a, drain(*random_calibration(g, 3, 8)));
  float lo = 1, hi = -1;
  for (const auto& x : a) {
    ASSERT_EQ(x.size(), 256u);
    for (const float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  EXPECT_GE(lo, kRandomInputLow);
  EXPECT_LE(hi, kRandomInputHigh);
  EXPECT_LT(lo, -0.9f);
  EXPECT_GT(hi, 0.9f);
  EXPECT_EQ(drain(*calibration_from_spec("random:3", g, 7, 2, "--calibration")),
            (std::vector<std::vector<float>>{a[0], a[1]}));

  NpyFloatArray rows{{3, 16, 4, 4}, {}};
  for (const auto& x : a) rows.values.insert(rows.values.end(), x.begin(), x.end());
  EXPECT_EQ(drain(*array_calibration(rows, 256, 100, "cal")), a);
  EXPECT_EQ(drain(*array_calibration(rows, 256, 1, "cal")).size(), 1u);
  try {
    array_calibration(rows, 100, 100, "cal.npy");
    ADD_FAILURE() << "rows of 256 values taken as inputs of 100";
  } catch (const ImportError& e) {
    EXPECT_STREQ(e.what(), "cal.npy: each row must hold one model input (100 values)");
  }

  const Config& cfg = vta::build_config();
  const QuantizedModel from_vector = quantize(g, a, cfg);
  const QuantizedModel from_source = quantize(g, *random_calibration(g, 3, 7), cfg);
  ASSERT_EQ(from_source.layers.size(), from_vector.layers.size());
  for (size_t i = 0; i < from_vector.layers.size(); ++i) {
    EXPECT_EQ(from_source.layers[i].params.frac_bits, from_vector.layers[i].params.frac_bits);
    EXPECT_EQ(from_source.layers[i].shift, from_vector.layers[i].shift);
  }
  auto wrong = vector_calibration({a[0], std::vector<float>(5)});
  try {
    quantize(g, *wrong, cfg);
    ADD_FAILURE() << "an input of 5 values accepted";
  } catch (const ImportError& e) {
    EXPECT_STREQ(e.what(), "test: calibration input 2 has 5 values, the model's input 256");
  }
}

// Equalization changes no float output and leaves each equalized pair's channel ranges equal.
TEST(OnnxQuantize, EqualizationIsExactAndBalancesRanges) {
  const fs::path model = vta::test::source_path("models/fashion_mnist/dwsep.onnx");
  const FloatGraph g = import_onnx(model);
  FloatGraph e = g;
  EXPECT_EQ(equalize_channels(e), 7);  // conv -> dw -> pw -> dw -> pw -> dw -> pw -> gemm: 7 pairs
  for (uint32_t seed : {1u, 2u}) {
    const auto x = random_floats(28 * 28, seed, 0, 1);
    const auto a = run_float(g, x).at(g.output), b = run_float(e, x).at(e.output);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(double(a[i]), double(b[i]), 1e-3 * (1 + std::fabs(double(a[i]))));
  }
  // the first depthwise layer's per-channel ranges: spread widely before, within a factor after
  auto spread = [](const FloatGraph& fg) {
    const FloatOp& dw = fg.ops[2];
    const FloatTensor& w = fg.constants.at(dw.weight);
    float lo = INFINITY, hi = 0;
    for (int64_t c = 0; c < w.shape[0]; ++c) {
      float r = 0;
      for (int64_t k = 0; k < 9; ++k) r = std::max(r, std::fabs(w.values[size_t(c * 9 + k)]));
      lo = std::min(lo, r), hi = std::max(hi, r);
    }
    return hi / lo;
  };
  ASSERT_EQ(g.ops[2].groups, 16);
  EXPECT_LT(spread(e), spread(g) / 4) << spread(g) << " -> " << spread(e);
}

// The trained classifiers quantized and run on VTA: every step equals the int8 reference, the layers
// VTA can run are there (the depthwise ones too), and the int8 top class is the float model's on most
// inputs.
TEST(OnnxQuantize, TrainedClassifiersRunOnVtaBitForBit) {
  const Config& cfg = vta::build_config();
  for (const auto& [model, vta_convs, depthwise] : {std::tuple{"cnn", 2, 0}, std::tuple{"dwsep", 6, 3}}) {
    const FloatGraph g = import_onnx(vta::test::source_path(std::string("models/fashion_mnist/") + model + ".onnx"));
    const auto cal = random_inputs(8, 28 * 28, 100, 0, 1);
    const QuantizedModel q = quantize(g, cal, cfg);
    int on_vta = 0;
    for (const auto& p : q.placements) {
      const Op& op = q.graph.producer(p.op);
      if (op.kind != OpKind::kConv2d) continue;
      if (p.placement == Placement::kVta) ++on_vta;
      if (p.placement == Placement::kHost) {
        EXPECT_NE(p.reason.find("1 input"), std::string::npos)
            << model << ": only the 1-channel conv stays on the host: " << p.reason;
      }
    }
    EXPECT_EQ(on_vta, vta_convs) << model;
    Executor ex(q.graph, cfg);
    int dw_steps = 0;
    for (const Step& s : ex.steps()) dw_steps += s.description.starts_with("depthwise");
    EXPECT_EQ(dw_steps, depthwise) << model;
    int agree = 0;
    for (uint32_t s = 0; s < 6; ++s) {
      const auto x = random_floats(28 * 28, 200 + s, 0, 1);
      const auto in = q.quantize_input(x);
      const Values ref = run_reference(q.graph, in);
      const NetworkRun r = ex.run(in, {}, &ref);
      EXPECT_TRUE(r.verified()) << model;
      const auto y = q.dequantize_output(r.output);
      const auto f = run_float(g, x).at(g.output);
      agree += std::max_element(y.begin(), y.end()) - y.begin() == std::max_element(f.begin(), f.end()) - f.begin();
      // the dequantized logits follow the float ones
      EXPECT_LT(relative_rms(y, f), 0.15) << model;
    }
    EXPECT_GE(agree, 5) << model;
  }
}

// Quantization to 4 bits (QuantizeOptions::weight_bits, activation_bits): the weights of every
// convolution VTA runs in [-7, 7] and the host's (the 1-channel convolution, the classifier) still
// int8-wide; every clip of an activation within [-8, 7]; the input 8 bits; the executor's run equals
// the reference bit for bit; any other width refused by name.
TEST(OnnxQuantize, FourBitWeightsAndActivations) {
  const Config& cfg = vta::build_config();
  const FloatGraph g = import_onnx(vta::test::source_path("models/fashion_mnist/resnet.onnx"));
  const auto cal = random_inputs(8, 28 * 28, 100, 0, 1);
  QuantizeOptions o;
  o.weight_bits = 4, o.activation_bits = 4;
  const QuantizedModel q = quantize(g, cal, cfg, o);
  int vta_convs = 0, wide_host_weights = 0, clips = 0;
  for (const Op& op : q.graph.ops()) {
    if (op.kind == OpKind::kClip) {
      ++clips;
      EXPECT_GE(op.lo, -8) << op.name;
      EXPECT_LE(op.hi, 7) << op.name;
    }
    if (op.kind != OpKind::kConv2d && op.kind != OpKind::kDense) continue;
    const auto& w = q.graph.weight(op.weight);
    const int most =
        *std::max_element(w.begin(), w.end(), [](int8_t a, int8_t b) { return std::abs(a) < std::abs(b); });
    if (op.placement == Placement::kVta) {
      ++vta_convs;
      EXPECT_LE(std::abs(most), 7) << op.name;
    } else {
      wide_host_weights += std::abs(most) > 7;
    }
  }
  EXPECT_EQ(vta_convs, 8);  // (six steps: the two downsamples inside their blocks)
  EXPECT_EQ(wide_host_weights, 2) << "the first convolution and the classifier keep 8-bit weights";
  EXPECT_GT(clips, 6);
  Executor ex(q.graph, cfg);
  const auto in = q.quantize_input(random_floats(28 * 28, 7, 0, 1));
  EXPECT_GT(*std::max_element(in.begin(), in.end()), 7) << "the input keeps 8 bits";
  const Values ref = run_reference(q.graph, in);
  EXPECT_TRUE(ex.run(in, {}, &ref).verified());
  o.activation_bits = 6;
  try {
    quantize(g, cal, cfg, o);
    ADD_FAILURE() << "6-bit activations taken";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("quantized to 4 or 8 bits, not 6"), std::string::npos) << e.what();
  }
}

// How far a quantized model's outputs (its int8 reference, dequantized) are from the float model's on
// `inputs`: the sum of the absolute differences.
double distance_from_float(const FloatGraph& g, const QuantizedModel& q,
                           const std::vector<std::vector<float>>& inputs) {
  double sum = 0;
  for (const auto& x : inputs) {
    const std::vector<float> y =
        q.dequantize_output(run_reference(q.graph, q.quantize_input(x)).at(q.graph.output_name()));
    const std::vector<float> f = run_float(g, x).at(g.output);
    for (size_t i = 0; i < y.size(); ++i) sum += std::fabs(double(y[i]) - double(f[i]));
  }
  return sum;
}

// Below 8 bits: a weight scale per output channel (scale_channels after the sum, factors powers of two
// up to 64, run on VTA and verified bit for bit), and the bias correction, which brings the int8 model's
// outputs closer to the float model's on the calibration inputs (the mean absolute difference of the
// logits, against the same quantization without it).
TEST(OnnxQuantize, PerChannelWeightsAndBiasCorrection) {
  const Config& cfg = vta::build_config();
  const FloatGraph g = import_onnx(vta::test::source_path("models/fashion_mnist/dwsep.onnx"));
  const auto cal = random_inputs(16, 28 * 28, 300, 0, 1);
  QuantizeOptions o;
  o.weight_bits = 4, o.per_channel_weights = true;
  const QuantizedModel per_channel = quantize(g, cal, cfg, o);
  int scaled = 0;
  for (const Op& op : per_channel.graph.ops()) {
    if (op.kind != OpKind::kScaleChannels) continue;
    ++scaled;
    EXPECT_EQ(op.placement, Placement::kVta) << op.name;
    for (const int8_t f : per_channel.graph.weight(op.weight)) {
      EXPECT_TRUE(f >= 1 && f <= 64 && (f & (f - 1)) == 0) << op.name << ": factor " << int(f);
    }
  }
  EXPECT_GT(scaled, 0) << "no convolution got a scale per channel";
  Executor ex(per_channel.graph, cfg);
  const auto in = per_channel.quantize_input(cal[0]);
  const Values ref = run_reference(per_channel.graph, in);
  EXPECT_TRUE(ex.run(in, {}, &ref).verified());

  const auto error = [&](bool correct) {
    QuantizeOptions c;
    c.weight_bits = 4, c.bias_correction = correct, c.weight_rounding_by_output = false;
    return distance_from_float(g, quantize(g, cal, cfg, c), cal);
  };
  const double corrected = error(true), uncorrected = error(false);
  EXPECT_LT(corrected, uncorrected) << "the bias correction moved the logits away from the float model's";
}

// The rounding by output (detail::round_by_output), by hand: a 1x1 convolution whose two input
// channels are always equal sees only the sum of its two weights. 0.4 and 0.4 each round to 0 (the
// output loses 0.8 x); rounded by output, the first's error (0.4) moves into the second, which becomes
// 0.4 + 0.4 / 1.01 (the damping's 1 %) and rounds to 1 (the output loses 0.2 x). Inputs that never
// vary together leave each weight to its nearest step; groups are rounded apart.
TEST(OnnxQuantize, WeightsRoundedByTheirEffectOnTheOutputByHand) {
  using detail::ConvShape;
  const auto factor = [](int64_t) { return 1.0; };
  detail::WindowMoments same(ConvShape{1, 2, 2, 2, 1, 2, 2, 1, 1, 0, 1});
  same.add({1, -2, 3, 0.5F, 1, -2, 3, 0.5F});  // channel 1 = channel 0
  EXPECT_EQ(detail::round_by_output({0.4F, 0.4F}, 1, 1, same, factor, 7), (std::vector<int8_t>{0, 1}));
  EXPECT_EQ(detail::round_by_output({0.4F, -0.4F}, 1, 1, same, factor, 7), (std::vector<int8_t>{0, 0}));
  // the grid's factor and its bound: 0.3 x 10 = 3, its error none; 0.9 x 10 = 9 saturates to 7
  EXPECT_EQ(detail::round_by_output(
                {0.3F, 0.9F}, 1, 1, same, [](int64_t) { return 10.0; }, 7),
            (std::vector<int8_t>{3, 7}));

  detail::WindowMoments apart(ConvShape{1, 2, 2, 2, 1, 2, 2, 1, 1, 0, 1});
  apart.add({1, 0, 2, 0, 0, 3, 0, -1});  // never both nonzero: H diagonal
  EXPECT_EQ(detail::round_by_output({0.4F, 0.45F}, 1, 1, apart, factor, 7), (std::vector<int8_t>{0, 0}));
  EXPECT_EQ(detail::round_by_output({0.6F, -1.6F}, 1, 1, apart, factor, 7), (std::vector<int8_t>{1, -2}));

  // depthwise (two groups of one channel, 1x1): each group's moments are its own; a channel always 0
  // rounds its weight to 0
  detail::WindowMoments depthwise(ConvShape{1, 2, 1, 2, 2, 1, 2, 1, 1, 0, 2});
  depthwise.add({1, 2, 0, 0});
  EXPECT_EQ(depthwise.group(0)(0, 0), 5.0);
  EXPECT_EQ(depthwise.group(1)(0, 0), 0.0);
  EXPECT_EQ(detail::round_by_output({2.2F, 3.7F}, 2, 2, depthwise, factor, 7), (std::vector<int8_t>{2, 0}));
  EXPECT_THROW(depthwise.add({1, 2, 3}), std::invalid_argument);
}

// On a trained model: the 4-bit weights rounded by output bring the logits closer to the float
// model's than each weight rounded to its nearest step (both with the bias correction).
TEST(OnnxQuantize, WeightsRoundedByOutputFollowTheFloatModel) {
  const Config& cfg = vta::build_config();
  const FloatGraph g = import_onnx(vta::test::source_path("models/fashion_mnist/dwsep.onnx"));
  const auto cal = random_inputs(16, 28 * 28, 301, 0, 1);
  const auto error = [&](bool by_output) {
    QuantizeOptions o;
    o.weight_bits = 4, o.weight_rounding_by_output = by_output;
    return distance_from_float(g, quantize(g, cal, cfg, o), random_inputs(16, 28 * 28, 302, 0, 1));
  };
  const double by_output = error(true), nearest = error(false);
  EXPECT_LT(by_output, nearest) << "rounding by output moved the logits away from the float model's";
}

// eight_bit_layers: the convolutions whose 4-bit rounding changed their own output most (a first
// quantization's WeightQuant::output_error) keep 8-bit weights, placed on VTA where the lanes are 8
// bits and on the host where they are 4, each note saying why; the rest are rounded as before. Named
// nodes likewise; a name that is not a Conv node is refused by name.
TEST(OnnxQuantize, TheLayersFourBitsHurtMostKeepEightBits) {
  const FloatGraph g = import_onnx(vta::test::source_path("models/fashion_mnist/dwsep.onnx"));
  const auto cal = random_inputs(8, 28 * 28, 303, 0, 1);
  QuantizeOptions o;
  o.weight_bits = 4;
  const QuantizedModel all = quantize(g, cal, vta::build_config(), o);
  std::vector<WeightQuant> rounded;
  for (const WeightQuant& w : all.weights) {
    if (w.bits == 4) rounded.push_back(w);
  }
  ASSERT_GE(rounded.size(), 3U);
  std::sort(rounded.begin(), rounded.end(),
            [](const auto& a, const auto& b) { return a.output_error > b.output_error; });
  EXPECT_GT(rounded[1].output_error, 0);
  const std::set<std::string> largest{rounded[0].op, rounded[1].op};

  const auto check = [&](const Config& cfg, Placement kept_on) {
    o.eight_bit_layers = 2;
    QuantizedModel q = quantize(g, cal, cfg, o);
    std::set<std::string> wide;
    for (const WeightQuant& w : q.weights) {
      if (w.bits == 8 && largest.count(w.op)) wide.insert(w.op);
    }
    EXPECT_EQ(wide, largest);
    int kept_notes = 0;
    for (const Op& op : q.graph.ops()) {
      if (op.kind != OpKind::kConv2d) continue;
      const auto& weights = q.graph.weight(op.weight);
      const auto [lo, hi] = std::minmax_element(weights.begin(), weights.end());
      const auto note = std::find_if(q.placements.begin(), q.placements.end(),
                                     [&](const PlacementNote& n) { return n.op == op.name; });
      if (note == q.placements.end()) {
        ADD_FAILURE() << op.name << " has no placement note";
        continue;
      }
      if (largest.count(note->onnx_node)) {
        ++kept_notes;
        EXPECT_TRUE(*lo < -8 || *hi > 7) << op.name << ": its weights should span 8 bits";
        EXPECT_EQ(op.placement, kept_on) << op.name;
        EXPECT_NE(note->reason.find("among the 2 largest: eight_bit_layers"), std::string::npos) << note->reason;
      } else if (op.placement == Placement::kVta) {
        EXPECT_TRUE(*lo >= -7 && *hi <= 7) << op.name << ": weights in [" << int(*lo) << ", " << int(*hi) << "]";
        EXPECT_NE(note->reason.find("4-bit weights (they change its output by"), std::string::npos) << note->reason;
      }
    }
    EXPECT_EQ(kept_notes, 2);
    const auto in = q.quantize_input(cal[0]);
    EXPECT_NO_THROW(run_reference(q.graph, in));
    return q;
  };
  const QuantizedModel here =
      check(vta::build_config(), vta::build_config().wgt_width() < 8 ? Placement::kHost : Placement::kVta);
  if (vta::build_config().wgt_width() == 8) {  // run on this build's device too
    Executor ex(here.graph, vta::build_config());
    const auto in = here.quantize_input(cal[0]);
    const Values ref = run_reference(here.graph, in);
    EXPECT_TRUE(ex.run(in, {}, &ref).verified());
  }
  check(Config::from_file(vta::test::source_path("config/samples/w4a8.json")), Placement::kHost);

  o.eight_bit_layers = 0, o.eight_bit_nodes = {rounded[2].op};
  const QuantizedModel named = quantize(g, cal, vta::build_config(), o);
  ASSERT_EQ(named.weights.size(), all.weights.size());
  for (size_t i = 0; i < all.weights.size(); ++i) {
    EXPECT_EQ(named.weights[i].bits, all.weights[i].op == rounded[2].op ? 8 : all.weights[i].bits) << all.weights[i].op;
  }
  o.eight_bit_nodes = {"/25/Gemm"};
  try {
    quantize(g, cal, vta::build_config(), o);
    ADD_FAILURE() << "a Gemm node was taken as a convolution to keep at 8 bits";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("eight_bit_nodes names /25/Gemm, which is not a Conv node"), std::string::npos)
        << e.what();
  }
}

// A calibration input with a NaN or an infinity is refused naming the input and the index (it made
// every scale, moment and bias after it meaningless: 'its bias is too large' named another cause).
TEST(OnnxQuantize, ACalibrationValueThatIsNotFiniteIsRefusedByName) {
  const FloatGraph g = import_onnx(vta::test::source_path("models/fashion_mnist/cnn.onnx"));
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
    auto cal = random_inputs(3, 28 * 28, 304, 0, 1);
    cal[1][5] = bad;
    try {
      quantize(g, cal, vta::build_config());
      ADD_FAILURE() << "a calibration input holding " << bad << " was taken";
    } catch (const ImportError& e) {
      EXPECT_NE(std::string(e.what()).find("calibration input 2 has a value that is not finite"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("at index 5"), std::string::npos) << e.what();
    }
  }
}

// ONNX's node tests for the operators the importer reads: the model, its inputs after the first
// bound as initializers where the operator takes them as parameters, run by the float reference
// and compared with the outputs shipped with the test.
TEST(OnnxNodeTests, SupportedOperatorsMatchOnnxOutputs) {
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is missing: scripts/setup.sh installs libonnx-testdata";
  const std::set<std::string> ops{"Conv",
                                  "Gemm",
                                  "MatMul",
                                  "Relu",
                                  "Clip",
                                  "LeakyRelu",
                                  "Add",
                                  "Mul",
                                  "MaxPool",
                                  "Flatten",
                                  "Reshape",
                                  "Identity",
                                  "Softmax",
                                  "Dropout",
                                  "BatchNormalization",
                                  "GlobalAveragePool",
                                  "QuantizeLinear",
                                  "DequantizeLinear",
                                  "QLinearConv",
                                  "QLinearMatMul",
                                  "AveragePool",
                                  "Concat",
                                  "Resize",
                                  "Upsample",
                                  "ConvTranspose",
                                  "Pad"};
  const std::set<std::string> parameters{"Conv",   "Gemm",     "MatMul",        "Clip", "Reshape", "BatchNormalization",
                                         "Resize", "Upsample", "ConvTranspose", "Pad"};
  auto read_tensor = [](const fs::path& p) {
    onnx::TensorProto t;
    std::ifstream in(p, std::ios::binary);
    EXPECT_TRUE(t.ParseFromIstream(&in)) << p;
    return t;
  };
  std::map<std::string, std::pair<int, int>> counts;  // operator: passed, refused
  std::vector<std::string> refused;
  for (const auto& dir : fs::directory_iterator(root)) {
    onnx::ModelProto m;
    std::ifstream in(dir.path() / "model.onnx", std::ios::binary);
    if (!m.ParseFromIstream(&in) || m.graph().node_size() != 1) continue;
    const std::string op = m.graph().node(0).op_type();
    if (!ops.count(op) || dir.path().filename().string().ends_with("_expanded")) continue;
    const fs::path data = dir.path() / "test_data_set_0";
    if (parameters.count(op)) {  // bind the parameters as initializers
      for (int i = 1; i < m.graph().input_size(); ++i) {
        onnx::TensorProto t = read_tensor(data / ("input_" + std::to_string(i) + ".pb"));
        t.set_name(m.graph().input(i).name());
        *m.mutable_graph()->add_initializer() = t;
      }
    }
    const std::string name = dir.path().filename().string();
    try {
      const FloatGraph g = import_onnx_bytes(m.SerializeAsString(), name);
      const onnx::TensorProto x = read_tensor(data / "input_0.pb"), y = read_tensor(data / "output_0.pb");
      auto floats = [](const onnx::TensorProto& t) {
        std::vector<float> v(size_t(t.raw_data().size() / 4));
        if (!v.empty()) std::memcpy(v.data(), t.raw_data().data(), v.size() * 4);
        if (v.empty()) v.assign(t.float_data().begin(), t.float_data().end());
        return v;
      };
      std::vector<float> out = run_float(g, floats(x)).at(g.output);
      if (g.softmax) out = softmax(out, int64_t(out.size()) / g.shape(g.output).back());
      expect_close(out, floats(y), name);
      ++counts[op].first;
    } catch (const ImportError& e) {
      ++counts[op].second;
      refused.push_back(name + ": " + e.what());
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  int passed = 0;
  for (const auto& [op, c] : counts) {
    std::printf("  %-20s passed %2d  refused %2d\n", op.c_str(), c.first, c.second);
    passed += c.first;
  }
  for (const auto& r : refused) std::printf("  refused %s\n", r.c_str());
  EXPECT_GE(passed, 50);
}

// A model its exporter quantized with power-of-two scales (QuantizeLinear/DequantizeLinear pairs
// around two convolutions, int8 weights) runs with its own scales: the input's, each activation's and
// the output's fraction bits are the model's, and the int8 output on VTA equals the model's own
// semantics (the float reference executes the Q/DQ nodes as ONNX defines them) bit for bit: a sum
// exactly halfway between two steps goes to the even one, as ONNX's QuantizeLinear rounds (shr_even on
// VTA's ALU), where a calibrated requantization rounds it up. A scale that is not a power of two is
// rounded to the nearest one, and the report says so.
TEST(OnnxImport, ExporterScalesAreHonoured) {
  const Config& cfg = vta::build_config();
  std::mt19937 rng(17);
  auto ints = [&](size_t n) {
    std::vector<int> v(n);
    for (int& e : v) e = int(rng() % 255) - 127;
    return v;
  };
  const std::vector<int> w1 = ints(16 * 16 * 9), w2 = ints(16 * 16);
  for (const float out_scale : {1.f / 32, 0.03f}) {
    ModelBuilder b({1, 16, 6, 6});
    auto qdq = [&](const std::string& x, float scale, const std::string& name) {
      b.node("QuantizeLinear", {x, b.constant(name + ".s", {}, {scale}), b.bytes(name + ".z", {}, {0}, false)},
             name + ".q");
      return b.node("DequantizeLinear", {name + ".q", name + ".s", name + ".z"}, name).output(0);
    };
    auto weight = [&](const std::string& name, const std::vector<int64_t>& dims, const std::vector<int>& q,
                      float scale) {
      b.bytes(name, dims, q, false);
      return b
          .node("DequantizeLinear", {name, b.constant(name + ".s", {}, {scale}), b.bytes(name + ".z", {}, {0}, false)},
                name + ".dq")
          .output(0);
    };
    const std::string xd = qdq("x", 1.f / 64, "in");
    auto& c1 = b.node("Conv", {xd, weight("w1", {16, 16, 3, 3}, w1, 1.f / 128)}, "conv1");
    ModelBuilder::ints(c1, "pads", {1, 1, 1, 1});
    const std::string h = qdq(b.node("Relu", {"conv1"}, "relu").output(0), 1.f / 16, "hidden");
    b.node("Conv", {h, weight("w2", {16, 16, 1, 1}, w2, 1.f / 64)}, "conv2");
    const std::string y = qdq("conv2", out_scale, "out");
    const FloatGraph g = b.import(y);
    const auto cal = random_inputs(4, 16 * 36, 150, -1.5f, 1.5f);
    const QuantizedModel q = quantize(g, cal, cfg);
    std::map<std::string, std::string> from;  // (the fake quantizations' tensors)
    for (const LayerQuant& l : q.layers) from[l.tensor] = l.scale_from;
    EXPECT_EQ(q.input.frac_bits, 6);
    EXPECT_EQ(from.at("x"), "model 2^-6");
    EXPECT_EQ(from.at("hidden.q#dequantized"), "model 2^-4");
    EXPECT_EQ(q.output.frac_bits, 5);
    if (out_scale != 1.f / 32) {
      EXPECT_EQ(from.at("out.q#dequantized"), "model 0.03 ~ 2^-5");
      continue;
    }
    EXPECT_EQ(from.at("out.q#dequantized"), "model 2^-5");
    // the model's arithmetic by hand, ties to even (as QuantizeLinear rounds); the ties met are counted
    int64_t ties = 0;
    auto round_even = [&](int64_t sum, int shift, int64_t lo) {
      const int64_t half = int64_t{1} << (shift - 1), low = sum & ((half << 1) - 1);
      int64_t r = sum >> shift;  // (floor)
      ties += low == half;
      if (low > half || (low == half && (r & 1) != 0)) ++r;
      return std::clamp(r, lo, int64_t{127});
    };
    Executor ex(q.graph, cfg);
    int64_t equal_onnx = 0, total = 0;
    for (uint32_t s = 0; s < 4; ++s) {
      const auto xf = random_floats(16 * 36, 160 + s, -1.5f, 1.5f);
      const auto in = q.quantize_input(xf);  // (round(x * 64), as QuantizeLinear: half to even)
      std::vector<int64_t> hidden(16 * 36), want(16 * 36);
      for (int64_t o = 0; o < 16; ++o) {
        for (int64_t p = 0; p < 36; ++p) {
          int64_t sum = 0;  // at 2^-13: 2^-6 x 2^-7
          for (int64_t c = 0; c < 16; ++c) {
            for (int64_t t = 0; t < 9; ++t) {
              const int64_t yy = p / 6 + t / 3 - 1, xx = p % 6 + t % 3 - 1;
              if (yy >= 0 && yy < 6 && xx >= 0 && xx < 6)
                sum += in[size_t(c * 36 + yy * 6 + xx)] * w1[size_t((o * 16 + c) * 9 + t)];
            }
          }
          hidden[size_t(o * 36 + p)] = round_even(std::max<int64_t>(sum, 0), 9, 0);  // ReLU, then 2^-13 -> 2^-4
        }
      }
      for (int64_t o = 0; o < 16; ++o) {
        for (int64_t p = 0; p < 36; ++p) {
          int64_t sum = 0;  // at 2^-10
          for (int64_t c = 0; c < 16; ++c) sum += hidden[size_t(c * 36 + p)] * w2[size_t(o * 16 + c)];
          want[size_t(o * 36 + p)] = round_even(sum, 5, -128);
        }
      }
      const Values ref = run_reference(q.graph, in);
      const NetworkRun r = ex.run(in, {}, &ref);
      EXPECT_TRUE(r.verified());
      EXPECT_EQ(std::vector<int64_t>(r.output.begin(), r.output.end()), want) << "the model's arithmetic, ties to even";
      const auto got = q.dequantize_output(r.output);
      const auto onnx = run_float(g, xf).at(g.output);
      for (size_t i = 0; i < got.size(); ++i, ++total) equal_onnx += got[i] == onnx[i];
    }
    // against ONNX's own semantics (the float reference): every output, ties met or not
    EXPECT_EQ(equal_onnx, total);
    EXPECT_GT(ties, 0) << "no sum fell halfway between two steps: the inputs do not test the rounding";
    std::printf("exporter scales: %lld of %lld outputs equal to ONNX's semantics, %lld ties met\n",
                static_cast<long long>(equal_onnx), static_cast<long long>(total), static_cast<long long>(ties));
  }
}

// A max pool over planes of h x w into oh x ow outputs: the window at (i * s - p, j * s - p), the
// values outside the input skipped.
std::vector<float> max_pool_loops(const std::vector<float>& x, int64_t planes, int64_t h, int64_t w, int64_t k,
                                  int64_t s, int64_t p, int64_t oh, int64_t ow) {
  std::vector<float> y;
  for (int64_t c = 0; c < planes; ++c) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        float m = -INFINITY;
        for (int64_t dy = 0; dy < k; ++dy) {
          for (int64_t dx = 0; dx < k; ++dx) {
            const int64_t yy = i * s + dy - p, xx = j * s + dx - p;
            if (yy >= 0 && yy < h && xx >= 0 && xx < w) m = std::max(m, x[size_t((c * h + yy) * w + xx)]);
          }
        }
        y.push_back(m);
      }
    }
  }
  return y;
}

// What torch.onnx writes for YOLOv3-tiny's ZeroPad2d((0, 1, 0, 1)) before its stride-1 max pool: the
// pads computed by ConstantOfShape, Concat, Reshape, Slice, Transpose and Cast of constants (folded as
// the model is read), then Pad; and a max pool with ceil_mode (SqueezeNet's) whose last window hangs
// over the input's end. Float against plain loops; quantized, the pools on VTA (after a ReLU, their
// padding may be zeros), verified.
TEST(OnnxImport, TorchZeroPadAndCeilModePools) {
  const Config& cfg = vta::build_config();
  ModelBuilder b({1, 16, 6, 6});
  const auto w = random_floats(16 * 16 * 9, 91, -0.2f, 0.2f);
  auto& conv = b.node("Conv", {"x", b.constant("w", {16, 16, 3, 3}, w)}, "conv");
  ModelBuilder::ints(conv, "pads", {1, 1, 1, 1});
  b.node("Relu", {"conv"}, "relu");
  b.node("ConstantOfShape", {b.int64s("four", {4})}, "zeros");  // (float zeros: the value's default)
  auto& cat = b.node("Concat", {b.int64s("given", {0, 1, 0, 1}), "zeros"}, "pads8");
  ModelBuilder::integer(cat, "axis", 0);
  b.node("Reshape", {"pads8", b.int64s("pairs", {-1, 2})}, "pairs4");
  b.node("Slice",
         {"pairs4", b.int64s("start", {-1}), b.int64s("end", {-9223372036854775807}), b.int64s("axis0", {0}),
          b.int64s("back", {-1})},
         "reversed");
  ModelBuilder::ints(b.node("Transpose", {"reversed"}, "onnx_order"), "perm", {1, 0});
  b.node("Reshape", {"onnx_order", b.int64s("flat", {-1})}, "pads_f");
  ModelBuilder::integer(b.node("Cast", {"pads_f"}, "pads"), "to", 7);
  b.node("Pad", {"relu", "pads", b.constant("zero", {}, {0.f})}, "padded");
  auto& p1 = b.node("MaxPool", {"padded"}, "pool1");
  ModelBuilder::ints(p1, "kernel_shape", {2, 2});
  auto& p2 = b.node("MaxPool", {"pool1"}, "pool2");
  ModelBuilder::ints(p2, "kernel_shape", {3, 3});
  ModelBuilder::ints(p2, "strides", {2, 2});
  ModelBuilder::integer(p2, "ceil_mode", 1);
  const FloatGraph g = b.import("pool2");
  EXPECT_EQ(g.shape("padded"), (std::vector<int64_t>{1, 16, 7, 7}));
  EXPECT_EQ(g.shape("pool2"), (std::vector<int64_t>{1, 16, 3, 3})) << "ceil((6 - 3) / 2) + 1 windows";

  const auto x = random_floats(16 * 36, 92);
  std::vector<float> r = conv_loops(x, w, {}, 16, 6, 6, 16, 3, 1, 1, 1), padded(16 * 49, 0.f);
  for (size_t c = 0; c < 16; ++c) {
    for (size_t i = 0; i < 6; ++i) {
      for (size_t j = 0; j < 6; ++j) padded[(c * 7 + i) * 7 + j] = std::max(r[(c * 6 + i) * 6 + j], 0.f);
    }
  }
  const auto pool1 = max_pool_loops(padded, 16, 7, 7, 2, 1, 0, 6, 6);
  expect_close(run_float(g, x).at(g.output), max_pool_loops(pool1, 16, 6, 6, 3, 2, 0, 3, 3),
               "zero pad at the bottom and right, max pool 2/1, max pool 3/2 with ceil_mode");

  const auto cal = random_inputs(4, 16 * 36, 93);
  const QuantizedModel q = quantize(g, cal, cfg);
  int pools_on_vta = 0;
  for (const Op& op : q.graph.ops()) {
    if (op.kind == OpKind::kMaxPool) pools_on_vta += op.placement == Placement::kVta;
    if (op.kind == OpKind::kMaxPool && op.stride == 2) {
      EXPECT_EQ(op.pad_after, 1) << "the window over the end";
    }
  }
  EXPECT_EQ(pools_on_vta, 2);
  Executor ex(q.graph, cfg);
  for (uint32_t s = 0; s < 2; ++s) {
    const auto in = q.quantize_input(random_floats(16 * 36, 100 + s));
    const Values ref = run_reference(q.graph, in);
    EXPECT_TRUE(ex.run(in, {}, &ref).verified());
  }
}

// The integer limits the exporters write as "to the end" and "from the start" (torch's Slice ends
// INT64_MAX, its reversed slices INT64_MIN + 1) are folded as those limits. (They are held as doubles
// while folded, where INT64_MAX becomes 2^63: converted back past int64's range, a Release build read
// it as INT64_MIN and sliced nothing, and the sanitizers stopped at it; fuzz corpus fold_int64_limit.)
TEST(OnnxImport, SliceBoundsAtInt64sLimitsAreTheEnds) {
  ModelBuilder b({1, 4, 2, 2});
  b.node("Slice",
         {b.int64s("dims", {7, 1, 16}), b.int64s("from", {1}), b.int64s("to", {9223372036854775807}),
          b.int64s("axis", {0})},
         "tail");
  b.node("Reshape", {"x", "tail"}, "flat");
  const FloatGraph g = b.import("flat");
  EXPECT_EQ(g.shape("flat"), (std::vector<int64_t>{1, 16})) << "dims[1:] of (7, 1, 16)";
}

// Channel counts that do not fill VTA's blocks (MobileNetV2's 24, SqueezeNet's 1000 classes, a YOLO
// head's 255): padded with zero channels on VTA when the last block is at least half full, so the
// convolutions, the depthwise one and the max pool run there; 3 channels stay on the host. Every
// step equal to the int8 reference; the int8 output following the float one.
TEST(OnnxImport, ChannelsShortOfABlockArePaddedOnVta) {
  const Config& cfg = vta::build_config();
  if (cfg.block_in() != 16 || cfg.block_out() != 16 || cfg.batch() != 1) GTEST_SKIP() << "written for BLOCK 16";
  ModelBuilder b({1, 3, 8, 8});
  uint32_t seed = 120;
  auto conv = [&](const std::string& x, int64_t in, int64_t out, int64_t k, int64_t groups, const std::string& name) {
    return b.node("Relu", {random_conv(b, x, in, out, k, groups, name, seed, 0.2f)}, name + ".relu").output(0);
  };
  std::string x = conv("x", 3, 24, 3, 1, "first");  // (3 input channels: the host)
  x = conv(x, 24, 24, 3, 24, "depthwise");
  x = conv(x, 24, 40, 1, 1, "pointwise");
  b.pool2x2("MaxPool", x, "pool");
  const std::string y = conv("pool", 40, 255, 1, 1, "head");
  const FloatGraph g = b.import(y);
  const auto cal = random_inputs(4, 3 * 64, 130);
  const QuantizedModel q = quantize(g, cal, cfg);
  std::map<std::string, Placement> where;
  for (const Op& op : q.graph.ops()) {
    if (op.kind == OpKind::kConv2d || op.kind == OpKind::kMaxPool) where[op.name] = op.placement;
  }
  EXPECT_EQ(where.at("first"), Placement::kHost);
  EXPECT_EQ(where.at("depthwise"), Placement::kVta);
  EXPECT_EQ(where.at("pointwise"), Placement::kVta);
  EXPECT_EQ(where.at("pool"), Placement::kVta);
  EXPECT_EQ(where.at("head"), Placement::kVta);
  Executor ex(q.graph, cfg);
  expect_verified_and_near_float(ex, q, g, 3 * 64, 140, 3);
}

// LeakyReLU (YOLO's activation) after a convolution: the float reference against plain loops, then
// quantized, on VTA's ALU (the clip that keeps the product in int8, MUL, SHR, MAX), every step equal
// to the int8 reference and the int8 output following the float one.
TEST(OnnxImport, LeakyReluRunsOnVtasAlu) {
  const Config& cfg = vta::build_config();
  ModelBuilder b({1, 16, 6, 6});
  const auto w1 = random_floats(32 * 16 * 9, 61, -0.2f, 0.2f), b1 = random_floats(32, 62, -0.5f, 0.5f);
  const auto w2 = random_floats(16 * 32, 63, -0.3f, 0.3f);
  auto& c1 = b.node("Conv", {"x", b.constant("w1", {32, 16, 3, 3}, w1), b.constant("b1", {32}, b1)}, "c1");
  ModelBuilder::ints(c1, "pads", {1, 1, 1, 1});
  ModelBuilder::real(b.node("LeakyRelu", {"c1"}, "l1"), "alpha", 0.1f);
  b.node("Conv", {"l1", b.constant("w2", {16, 32, 1, 1}, w2)}, "c2");
  ModelBuilder::real(b.node("LeakyRelu", {"c2"}, "l2"), "alpha", 0.25f);
  const FloatGraph g = b.import("l2");
  auto leaky = [](std::vector<float> v, float a) {
    for (float& e : v) e = e < 0 ? a * e : e;
    return v;
  };
  const auto x = random_floats(16 * 36, 64);
  const auto h = leaky(conv_loops(x, w1, b1, 16, 6, 6, 32, 3, 1, 1, 1), 0.1f);
  expect_close(run_float(g, x).at(g.output), leaky(conv_loops(h, w2, {}, 32, 6, 6, 16, 1, 1, 0, 1), 0.25f),
               "conv, leaky relu 0.1, conv, leaky relu 0.25");

  const auto cal = random_inputs(4, 16 * 36, 70);
  const QuantizedModel q = quantize(g, cal, cfg);
  int leaky_on_vta = 0;
  for (const Op& op : q.graph.ops()) {
    if (op.kind != OpKind::kLeakyRelu) continue;
    EXPECT_EQ(op.placement, Placement::kVta) << op.name;
    leaky_on_vta += op.placement == Placement::kVta;
  }
  EXPECT_EQ(leaky_on_vta, 2);
  Executor ex(q.graph, cfg);
  expect_verified_and_near_float(ex, q, g, 16 * 36, 80, 3);
  // the int8 operator as VTA computes it: the product rounded to the nearest (ties up), x * 0.100006
  Graph t("leaky");
  t.input("x", {1, 16, 1, 1});
  const std::string wide = t.conv2d("id", "x",
                                    t.constant("w", {16, 16, 1, 1},
                                               [] {
                                                 std::vector<int8_t> e(256, 0);
                                                 for (int i = 0; i < 16; ++i) e[size_t(i) * 17] = 1;
                                                 return e;
                                               }()),
                                    1, 0);
  t.set_output(t.leaky_relu("l", wide, 3277, 15));
  const std::vector<int8_t> in{-128, -100, -11, -10, -9, -1, 0, 1, 127, 5, -5, 50, -50, 100, -20, 20};
  const auto out = run_reference(t, in).at(t.output_name());
  const std::vector<int32_t> want{-13, -10, -1, -1, -1, 0, 0, 1, 127, 5, -1, 50, -5, 100, -2, 20};
  EXPECT_EQ(out, want);
}

// A GlobalAveragePool over a square map is the average pool whose window is the map: its sum on VTA's
// ALU with its requantization fused after it, then Flatten and the classifier, verified against the
// int8 reference (on the tsim too: Onnx.ClassifiersOnTsim); over a map that is not square, the host
// sums it (verified alike). The int8 network follows the float one.
TEST(OnnxQuantize, AGlobalAveragePoolOverASquareMapSumsOnVta) {
  const Config& cfg = vta::build_config();
  const int64_t ch = 2 * cfg.block_out();
  for (const auto& [h, w] : {std::pair<int64_t, int64_t>{6, 6}, {6, 4}}) {
    ModelBuilder b({cfg.batch(), ch, h, w});
    uint32_t seed = 60;
    const std::string c = random_conv(b, "x", ch, ch, 3, 1, "conv", seed, 0.3f);
    b.node("Relu", {c}, "relu");
    b.node("GlobalAveragePool", {"relu"}, "gap");
    b.node("Flatten", {"gap"}, "flat");
    auto& fc = b.node("Gemm",
                      {"flat", b.constant("fc.w", {10, ch}, random_floats(size_t(10 * ch), ++seed, -0.3f, 0.3f)),
                       b.constant("fc.b", {10}, random_floats(10, ++seed, -0.1f, 0.1f))},
                      "fc");
    ModelBuilder::integer(fc, "transB", 1);
    const FloatGraph g = b.import("fc");
    const int64_t size = cfg.batch() * ch * h * w;
    const QuantizedModel q = quantize(g, random_inputs(4, size, 70, -1, 1), cfg);
    Executor ex(q.graph, cfg);
    const std::string where = std::to_string(h) + "x" + std::to_string(w);
    const Step* pool = nullptr;
    for (const Step& s : ex.steps()) {
      if (s.ops[0]->name == "gap") pool = &s;
    }
    ASSERT_NE(pool, nullptr) << where;
    if (h == w) {
      EXPECT_EQ(pool->placement, Placement::kVta) << where;
      EXPECT_EQ(pool->description, "avg_pool 6x6/6 + bias_add + shr + clip + cast");
    } else {
      EXPECT_EQ(pool->placement, Placement::kHost) << where;
      EXPECT_EQ(pool->ops[0]->kind, OpKind::kGlobalAvgPool) << where;
    }
    for (uint32_t k = 0; k < 2; ++k) {
      const auto xf = random_floats(size_t(size), 80 + k, -1, 1);
      const auto in = q.quantize_input(xf);
      const Values ref = run_reference(q.graph, in);
      const NetworkRun r = ex.run(in, {}, &ref);
      EXPECT_TRUE(r.verified()) << where;
      EXPECT_LT(relative_rms(q.dequantize_output(r.output), run_float(g, xf).at(g.output)), 0.1) << where;
    }
  }
}

// A Concat of two Relu'd convolutions whose ranges are 8 times apart (a SqueezeNet fire module's
// expands): the wider one is calibrated to fewer fraction bits, and the other is requantized at that
// scale on VTA instead of shifted on the host afterwards, so that both steps write the concatenation
// in place; verified against the int8 reference and following the float model.
TEST(OnnxQuantize, AConcatenatedSumIsRequantizedAtTheConcatenationsScale) {
  const Config& cfg = vta::build_config();
  const int64_t ch = cfg.block_in(), oc = cfg.block_out();
  ModelBuilder b({cfg.batch(), ch, 6, 6});
  auto conv = [&](const std::string& name, int64_t k, float bound, uint32_t seed) {
    auto& n = b.node(
        "Conv",
        {"x", b.constant(name + ".w", {oc, ch, k, k}, random_floats(size_t(oc * ch * k * k), seed, -bound, bound)),
         b.constant(name + ".b", {oc}, random_floats(size_t(oc), seed + 1, -0.1f, 0.1f))},
        name);
    ModelBuilder::ints(n, "kernel_shape", {k, k});
    ModelBuilder::ints(n, "pads", {k / 2, k / 2, k / 2, k / 2});
    return b.node("Relu", {name}, name + ".relu").output(0);
  };
  const std::string narrow = conv("e1", 1, 0.1f, 90), wide = conv("e3", 3, 0.8f, 92);
  auto& cat = b.node("Concat", {narrow, wide}, "cat");
  ModelBuilder::integer(cat, "axis", 1);
  uint32_t seed = 94;
  random_conv(b, "cat", 2 * oc, oc, 1, 1, "next", seed, 0.1f);
  const FloatGraph g = b.import("next");
  const int64_t size = cfg.batch() * ch * 36;
  const QuantizedModel q = quantize(g, random_inputs(4, size, 95, -1, 1), cfg);
  for (const Op& op : q.graph.ops()) {
    EXPECT_EQ(op.name.find("rescale"), std::string::npos) << op.name << ": no input shifted on the host";
  }
  Executor ex(q.graph, cfg);
  bool in_place = false;
  for (const Step& s : ex.steps()) in_place |= s.ops[0]->kind == OpKind::kConcat && s.in_place;
  EXPECT_TRUE(in_place);
  for (uint32_t k = 0; k < 2; ++k) {
    const auto xf = random_floats(size_t(size), 96 + k, -1, 1);
    const auto in = q.quantize_input(xf);
    const Values ref = run_reference(q.graph, in);
    const NetworkRun r = ex.run(in, {}, &ref);
    EXPECT_TRUE(r.verified());
    EXPECT_LT(relative_rms(q.dequantize_output(r.output), run_float(g, xf).at(g.output)), 0.1);
  }
}

// Residual blocks as torch.onnx.export writes a trained network's (batch norms folded: every
// convolution has a bias): torchvision's bottleneck with its downsample and without, then two of
// MobileNetV2's inverted residuals (ReLU6 as Clip, a depthwise convolution, a linear projection; the
// first block's sum read by the second's expansion and by its add), a classifier. With the default
// options (rounding to nearest) each VTA step has one bias: the rounding of a sum after a residual
// add joins the bias before the add, and a downsample keeps its own bias inside its block's step.
TEST(OnnxResidual, TorchBlocksRunWithTheDefaults) {
  const Config& cfg = vta::build_config();
  if (cfg.batch() != 1 || cfg.block_in() != 16 || cfg.block_out() != 16) GTEST_SKIP() << "written for BLOCK 16";
  ModelBuilder b({1, 32, 8, 8});
  uint32_t seed = 40;
  auto conv = [&](const std::string& x, int64_t in, int64_t out, int64_t k, int64_t groups, const std::string& name) {
    return random_conv(b, x, in, out, k, groups, name, seed, 0.3f);
  };
  auto relu = [&](const std::string& x) { return b.node("Relu", {x}, x + ".relu").output(0); };
  auto relu6 = [&](const std::string& x) {
    return b.node("Clip", {x, b.constant(x + ".lo", {}, {0.f}), b.constant(x + ".hi", {}, {6.f})}, x + ".relu6")
        .output(0);
  };
  auto bottleneck = [&](const std::string& x, int64_t in, const std::string& name, bool downsample) {
    const std::string a = relu(conv(x, in, 16, 1, 1, name + ".conv1"));
    const std::string c = relu(conv(a, 16, 16, 3, 1, name + ".conv2"));
    const std::string d = conv(c, 16, 64, 1, 1, name + ".conv3");
    const std::string identity = downsample ? conv(x, in, 64, 1, 1, name + ".downsample") : x;
    return relu(b.node("Add", {d, identity}, name + ".add").output(0));
  };
  auto inverted = [&](const std::string& x, const std::string& name) {
    const std::string e = relu6(conv(x, 64, 128, 1, 1, name + ".expand"));
    const std::string d = relu6(conv(e, 128, 128, 3, 128, name + ".depthwise"));
    return b.node("Add", {conv(d, 128, 64, 1, 1, name + ".project"), x}, name + ".add").output(0);
  };
  std::string x = bottleneck("x", 32, "layer1.0", true);
  x = bottleneck(x, 64, "layer1.1", false);
  x = inverted(inverted(x, "features.1"), "features.2");
  b.node("GlobalAveragePool", {x}, "gap");
  b.node("Flatten", {"gap"}, "flat");
  auto& fc = b.node("Gemm",
                    {"flat", b.constant("fc.w", {10, 64}, random_floats(640, ++seed, -0.3f, 0.3f)),
                     b.constant("fc.b", {10}, random_floats(10, ++seed, -0.1f, 0.1f))},
                    "fc");
  ModelBuilder::integer(fc, "transB", 1);
  const FloatGraph g = b.import("fc");
  const auto cal = random_inputs(4, 32 * 64, 300, -1, 1);
  const QuantizedModel q = quantize(g, cal, cfg);  // the defaults: rounding to nearest
  Executor ex(q.graph, cfg);
  std::map<std::string, Residual> residuals;
  for (const Step& s : ex.steps()) {
    if (s.placement != Placement::kVta) continue;
    int biases = 0;
    for (const Op* op : s.ops) biases += op->kind == OpKind::kBiasAdd;
    EXPECT_EQ(biases, 1) << s.name << ": " << s.description;
    residuals[s.name] = s.residual;
  }
  // the downsample inside its block (its own bias there), the identity blocks' residuals where the sums start
  EXPECT_EQ(residuals.at("layer1.0.add.relu"), Residual::kShortcut);
  EXPECT_EQ(residuals.at("layer1.1.add.relu"), Residual::kSumInit);
  EXPECT_EQ(residuals.size(), 13u)
      << "3 steps per bottleneck (the downsample inside one), 3 per inverted residual, the global pool";
  EXPECT_EQ(residuals.at("gap.q"), Residual::kNone);
  for (uint32_t s = 0; s < 3; ++s) {
    const auto xf = random_floats(32 * 64, 400 + s, -1, 1);
    const auto in = q.quantize_input(xf);
    const Values ref = run_reference(q.graph, in);
    const NetworkRun r = ex.run(in, {}, &ref);
    EXPECT_TRUE(r.verified());
    const auto y = q.dequantize_output(r.output);
    const auto f = run_float(g, xf).at(g.output);
    EXPECT_LT(relative_rms(y, f), 0.1) << "the int8 network follows the float one";
  }
}

// torchvision's ResNet-18 as torch.onnx.export writes it in eval mode (models/resnet18/export.py):
// batch norms folded into the convolutions (their initial statistics: zero biases), ReLU, the max
// pool, residual Adds (the block's conv2 first), the average pool, Flatten, the classifier with its
// bias; generated weights.
FloatGraph resnet18_onnx(int64_t image, uint32_t seed) {
  ModelBuilder b({1, 3, image, image});
  uint32_t s = seed;
  int64_t next = 0;
  auto conv = [&](const std::string& x, int64_t in, int64_t out, int64_t k, int64_t stride, const std::string& name) {
    const float bound = 1.f / std::sqrt(float(in * k * k));
    auto& n = b.node(
        "Conv",
        {x, b.constant(name + ".w", {out, in, k, k}, random_floats(size_t(out * in * k * k), ++s, -bound, bound)),
         b.constant(name + ".b", {out}, std::vector<float>(size_t(out), 0.f))},
        name);
    ModelBuilder::ints(n, "kernel_shape", {k, k});
    ModelBuilder::ints(n, "strides", {stride, stride});
    ModelBuilder::ints(n, "pads", {k / 2, k / 2, k / 2, k / 2});
    return name;
  };
  auto relu = [&](const std::string& x) { return b.node("Relu", {x}, "relu" + std::to_string(++next)).output(0); };
  std::string x = relu(conv("x", 3, 64, 7, 2, "conv1"));
  auto& pool = b.node("MaxPool", {x}, "maxpool");
  ModelBuilder::ints(pool, "kernel_shape", {3, 3});
  ModelBuilder::ints(pool, "strides", {2, 2});
  ModelBuilder::ints(pool, "pads", {1, 1, 1, 1});
  x = "maxpool";
  int64_t channels = 64;
  for (int layer = 1; layer <= 4; ++layer) {
    const int64_t width = 64 << (layer - 1);
    for (int block = 0; block < 2; ++block) {
      const std::string name = "layer" + std::to_string(layer) + "." + std::to_string(block);
      const int64_t stride = layer > 1 && block == 0 ? 2 : 1;
      const std::string a = relu(conv(x, channels, width, 3, stride, name + ".conv1"));
      const std::string c = conv(a, width, width, 3, 1, name + ".conv2");
      const std::string identity = stride > 1 ? conv(x, channels, width, 1, stride, name + ".downsample") : x;
      b.node("Add", {c, identity}, name + ".add");
      x = relu(name + ".add");
      channels = width;
    }
  }
  b.node("GlobalAveragePool", {x}, "avgpool");
  b.node("Flatten", {"avgpool"}, "flatten");
  auto& fc = b.node("Gemm",
                    {"flatten", b.constant("fc.w", {1000, 512}, random_floats(512000, ++s, -0.04f, 0.04f)),
                     b.constant("fc.b", {1000}, random_floats(1000, ++s, -0.04f, 0.04f))},
                    "fc");
  ModelBuilder::integer(fc, "transB", 1);
  return b.import("fc");
}

// A VTA step's chain without the shift an Add may be followed by (the imported network's scale after
// a residual addition is its calibrated one; the hand-built network keeps the residual's).
std::string without_shift_after_add(std::string d) {
  const std::string extra = " + add + shr";
  for (size_t at = d.find(extra); at != std::string::npos; at = d.find(extra)) d.erase(at + 6, 6);
  const size_t sc = d.find(") + shr + clip");
  if (sc != std::string::npos) d.erase(sc + 1, 6);
  return d;
}

// ResNet-18 imported from ONNX compiles to the hand-built network's VTA steps (the same fusion: the
// shortcuts inside their blocks, residuals where the sums start) and runs in the same cycles within 1 %,
// every step verified.
TEST(OnnxResNet18, MatchesTheHandBuiltNetwork) {
  const Config& cfg = vta::build_config();
  if (cfg.batch() != 1) GTEST_SKIP() << "the imported model has batch 1";
  const int64_t image = 64;
  const FloatGraph fg = resnet18_onnx(image, 7);
  QuantizeOptions qo;
  qo.round_to_nearest = false;
  const auto cal = random_floats(size_t(3 * image * image), 8, -1, 1);
  const QuantizedModel q = quantize(fg, {cal}, cfg, qo);
  ResNet18Options ho;
  ho.image = image, ho.max_pool_on_vta = true;
  Graph hand = resnet18(ho);
  const auto hand_input = generated_input(hand, 1);
  calibrate_shifts(hand, hand_input);

  Executor ex(q.graph, cfg), hx(hand, cfg);
  std::vector<const Step*> vta, hand_vta;
  for (const Step& s : ex.steps()) {
    if (s.placement == Placement::kVta) vta.push_back(&s);
  }
  for (const Step& s : hx.steps()) {
    if (s.placement == Placement::kVta) hand_vta.push_back(&s);
  }
  // the max pool, 16 convolution steps (19 convolutions) and the global pool (its map is square), which
  // the hand-built network sums on the host
  ASSERT_EQ(vta.size(), 18u);
  EXPECT_EQ(vta.back()->description, "avg_pool 2x2/2 + shr + clip + cast");
  vta.pop_back();
  ASSERT_EQ(hand_vta.size(), vta.size());
  // the hand-built network's pool, shift, clip and cast are four host steps, the imported one's a VTA
  // step and a flatten; the imported classifier's bias is a host step of its own
  EXPECT_EQ(ex.steps().size() + 1, hx.steps().size());
  uint64_t estimate = 0, hand_estimate = 0;
  for (size_t i = 0; i < vta.size(); ++i) {
    EXPECT_EQ(without_shift_after_add(vta[i]->description), hand_vta[i]->description) << i;
    EXPECT_EQ(vta[i]->residual, hand_vta[i]->residual) << vta[i]->description;
    estimate += vta[i]->estimated_cycles, hand_estimate += hand_vta[i]->estimated_cycles;
  }
  EXPECT_NEAR(double(estimate) / double(hand_estimate), 1.0, 0.01) << estimate << " vs " << hand_estimate;

  const auto in = q.quantize_input(cal);
  const Values ref = run_reference(q.graph, in), hand_ref = run_reference(hand, hand_input);
  const NetworkRun r = ex.run(in, {}, &ref), hr = hx.run(hand_input, {}, &hand_ref);
  EXPECT_TRUE(r.verified());
  EXPECT_TRUE(hr.verified());
  EXPECT_EQ(r.vta.gemm_counter, hr.vta.gemm_counter);
  if (r.vta.cycle_count) {
    EXPECT_NEAR(double(*r.vta.cycle_count) / double(*hr.vta.cycle_count), 1.0, 0.01)
        << *r.vta.cycle_count << " vs " << *hr.vta.cycle_count;
  }
  // and the int8 network follows the float one
  const auto y = q.dequantize_output(r.output);
  const auto f = run_float(fg, cal).at(fg.output);
  EXPECT_LT(relative_rms(y, f), 0.2);
}

}  // namespace
}  // namespace vta::network
