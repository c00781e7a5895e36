#pragma once
/// \file vta/network/graph.h
/// A quantized network as a list of operators on named tensors (docs/NETWORK.md). Activations are
/// NCHW (or NC after pooling), int8 or int32; weights are int8 constants held by the graph. Each
/// elementwise operator is one VTA ALU operation (SHR, ADD, MAX, MIN) or the int8 store, so a
/// convolution followed by its requantization, ReLU and residual addition is one VTA program; each
/// operator says whether it runs on the host or on VTA.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace vta::network {

/// A graph that cannot be built or run (an unknown tensor, a shape that does not fit, a value out of
/// range); the message names the operator and the tensor.
class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ElemType : uint8_t { kInt8, kInt32 };
const char* to_string(ElemType t);

struct TensorDesc {
  std::string name;
  std::vector<int64_t> shape;  ///< NCHW activations, (N, C) after pooling, OIHW / (M, K) weights
  ElemType type = ElemType::kInt8;
  int64_t elements() const;
};

enum class OpKind : uint8_t {
  kConv2d,         ///< int8 NCHW x int8 O(I/groups)HW weight -> int32; kernel, stride, pad (zeros), groups
  kDense,          ///< int8 (N, K) x int8 (M, K) weight -> int32 (N, M)
  kShr,            ///< int32 (or int8, on the host) >> shift (arithmetic)
  kAdd,            ///< int32 + int32, or int32 + int8 sign-extended (a residual), wrapping
  kRelu,           ///< max(x, 0)
  kClip,           ///< min(max(x, lo), hi)
  kCast,           ///< int32 -> int8 (every value must already be in [-128, 127])
  kMaxPool,        ///< int8 -> int8; kernel, stride, pad (padding never wins)
  kGlobalAvgPool,  ///< int8 (N, C, H, W) -> int32 (N, C): the sum over H x W (scale with kShr)
  kBiasAdd,        ///< int32 (N, C, ...) + (int8 constant bias[C] << shift), wrapping
  kFlatten,        ///< int8 (N, C, H, W) -> int8 (N, C x H x W), the same values in the same order
  kAvgPool,        ///< int8 -> int32: the sum over each kernel x kernel window (zero padding counted)
  kConcat,         ///< int8 tensors joined along the channels (dimension 1), in input order
  kUpsample,       ///< int8 -> int8: nearest neighbour, each value repeated `kernel` times down, `stride` across
  kDilate,         ///< int8 -> int8: `stride` - 1 zeros between values, `pad` more zero rows and columns
                   ///< at the bottom and right (a transposed convolution's input)
  kLeakyRelu,      ///< max(x, (x * multiplier + 2^(shift-1)) >> shift): a slope of multiplier / 2^shift
                   ///< for x < 0, rounded to nearest (wrapping in 32 bits, as VTA's MUL: clip x first)
  kShrEven,        ///< int32 >> shift rounded to the nearest, a tie to the even neighbour (ONNX's
                   ///< QuantizeLinear); shift 1 to 16. VTA's ALU: x' = x + 2^(shift-1) - 1, then
                   ///< (x' + bit `shift` of x') >> shift, all wrapping in 32 bits
  kScaleChannels,  ///< int32 (N, C, ...) x int8 constant factor[C], wrapping (VTA's MUL by a loaded
                   ///< vector): a weight scale per output channel brought to one scale
};
const char* to_string(OpKind k);

enum class Placement : uint8_t { kHost, kVta };
const char* to_string(Placement p);

struct Op {
  OpKind kind = OpKind::kConv2d;
  std::string name;                 ///< e.g. "layer1.0.conv1"
  std::vector<std::string> inputs;  ///< activation tensors
  std::string output;
  std::string weight;  ///< kConv2d, kDense: the weight constant; kBiasAdd: the bias constant;
                       ///< kScaleChannels: the factors
  int kernel = 1, stride = 1, pad = 0;
  int groups = 1;          ///< kConv2d: input and output channels in `groups` independent groups
  int pad_after = 0;       ///< kMaxPool: more padding at the bottom and right (ONNX's ceil_mode, end pads)
  int shift = 0;           ///< kShr; kBiasAdd: the bias's left shift; kLeakyRelu: the slope's
  int32_t multiplier = 0;  ///< kLeakyRelu: the slope's numerator
  int32_t lo = 0, hi = 0;  ///< kClip
  Placement placement = Placement::kHost;
};

class Graph;

/// The multiply-accumulates of a graph's convolutions and dense operators, by placement.
struct MacCount {
  int64_t vta = 0, host = 0;
  double vta_share() const { return vta + host > 0 ? double(vta) / double(vta + host) : 0.0; }
};
MacCount count_macs(const Graph& g);

/// The most elements one tensor of a graph may have (2^28: 1 GiB as int32), whatever builds it.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 28;

/// The network: its tensors, operators in execution order, weight constants, one input and one output.
/// Every tensor's dimensions are >= 1 and its elements at most kMaxTensorElements (GraphError).
class Graph {
 public:
  explicit Graph(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  /// Declares the network input (int8).
  std::string input(const std::string& name, std::vector<int64_t> shape);
  /// Adds a weight constant (int8, row-major in `shape`).
  std::string constant(const std::string& name, std::vector<int64_t> shape, std::vector<int8_t> values);

  // Operators: each checks its inputs, infers the output's shape and type, and returns its name.
  /// A weight of shape (O, C / groups, K, K); groups = C = O is a depthwise convolution.
  std::string conv2d(const std::string& name, const std::string& x, const std::string& weight, int stride, int pad,
                     int groups = 1);
  std::string dense(const std::string& name, const std::string& x, const std::string& weight);
  std::string shr(const std::string& name, const std::string& x, int shift);
  /// x >> shift rounded to the nearest, ties to even (kShrEven), int32: shift 1 to kMaxShrEvenShift.
  std::string shr_even(const std::string& name, const std::string& x, int shift);
  /// shr_even's largest shift: its rounding term 2^(shift-1) - 1 is a 16-bit ALU immediate.
  static constexpr int kMaxShrEvenShift = 16;
  std::string add(const std::string& name, const std::string& a, const std::string& b);
  std::string relu(const std::string& name, const std::string& x);
  std::string clip(const std::string& name, const std::string& x, int32_t lo, int32_t hi);
  /// max(x, (x * multiplier + 2^(shift-1)) >> shift), int32: multiplier 1 to 32767 and shift 1 to 15
  /// (ALU immediates), the slope below 1.
  std::string leaky_relu(const std::string& name, const std::string& x, int32_t multiplier, int shift);
  std::string cast(const std::string& name, const std::string& x);
  std::string max_pool(const std::string& name, const std::string& x, int kernel, int stride, int pad,
                       int pad_after = 0);
  std::string global_avg_pool(const std::string& name, const std::string& x);
  /// x + (bias[c] << shift) for each element of channel c (dimension 1); `bias` an int8 constant (C).
  std::string bias_add(const std::string& name, const std::string& x, const std::string& bias, int shift);
  /// x * factors[c] for each element of channel c (dimension 1), int32; `factors` an int8 constant (C).
  std::string scale_channels(const std::string& name, const std::string& x, const std::string& factors);
  std::string flatten(const std::string& name, const std::string& x);
  std::string avg_pool(const std::string& name, const std::string& x, int kernel, int stride, int pad);
  std::string concat(const std::string& name, const std::vector<std::string>& xs);
  std::string upsample(const std::string& name, const std::string& x, int factor_h, int factor_w);
  std::string dilate(const std::string& name, const std::string& x, int stride, int extra);
  /// shr, clip to [0, 127] (relu) or [-128, 127], cast: int32 -> int8, the ops named `name`.shr ...
  std::string requantize(const std::string& name, const std::string& x, int shift, bool relu);

  void set_output(const std::string& name);
  /// A further output (a model with two detection heads): its values are kept and returned beside the
  /// first's (NetworkRun::extra_outputs).
  void add_output(const std::string& name);
  const std::string& input_name() const { return input_; }
  const std::string& output_name() const { return output_; }
  const std::vector<std::string>& extra_outputs() const { return extra_outputs_; }
  bool is_output(const std::string& tensor) const;

  const TensorDesc& tensor(const std::string& name) const;
  bool has_tensor(const std::string& name) const { return tensors_.count(name) != 0; }
  const std::vector<int8_t>& weight(const std::string& name) const;
  std::vector<int8_t>& mutable_weight(const std::string& name);
  const std::vector<Op>& ops() const { return ops_; }
  std::vector<Op>& mutable_ops() { return ops_; }
  /// The operators that read `tensor`.
  std::vector<const Op*> consumers(const std::string& tensor) const;
  const Op& producer(const std::string& tensor) const;
  /// Names of the weight constants, in the order they were added.
  const std::vector<std::string>& weight_names() const { return weight_order_; }

 private:
  std::string add_op(Op op, TensorDesc out);
  Op per_channel_op(OpKind kind, const std::string& name, const std::string& x, const std::string& constant,
                    const char* what);
  const TensorDesc& need(const Op& op, const std::string& name, ElemType type) const;
  std::string name_;
  std::map<std::string, TensorDesc> tensors_;
  std::map<std::string, std::vector<int8_t>> weights_;
  std::vector<std::string> weight_order_;
  std::vector<Op> ops_;
  std::string input_, output_;
  std::vector<std::string> extra_outputs_;
};

}  // namespace vta::network
