// ONNX models read into a FloatGraph (docs/MODELS.md "What is imported"): the protobuf parsed with
// Debian's libonnx, its constants and input read, every size bounded before anything is allocated,
// and each node sent to its operator's converter (onnx_operators.cc holds them and their table).

#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include "onnx_importer.h"
#include "vta/driver/file.h"

namespace vta::network::onnx_import_detail {

FloatOp make(FloatOpKind kind) {
  FloatOp op;
  op.kind = kind;
  return op;
}

FloatGraph Importer::run() {
  opset_ = default_opset();
  const onnx::GraphProto& graph = model_.graph();
  g_.name = graph.name().empty() ? "model" : graph.name();
  for (const auto& t : graph.initializer()) constant_from(t, "initializer " + t.name());
  read_input(graph);
  for (const auto& node : graph.node()) {
    for (const auto& i : node.input()) ++readers_[i];
  }
  for (const auto& o : graph.output()) ++readers_[o.name()];
  for (const auto& n : graph.node()) node(n);
  if (graph.output_size() < 1) fail("the graph has no output");
  std::set<std::string> seen;
  for (int i = 0; i < graph.output_size(); ++i) {  // every output, as the exporters write them
    const std::string& name = graph.output(i).name();
    const std::string t = resolve(name);
    if (!g_.shapes.count(t)) fail("the graph output " + name + " is not computed by any node");
    if (!seen.insert(t).second) fail("the graph output " + name + " is another output's tensor");
    if (i == 0) {
      g_.output = t;
    } else {
      g_.extra_outputs.push_back(t);
    }
  }
  return std::move(g_);
}

int64_t Importer::default_opset() const {
  int64_t v = -1;
  for (const auto& o : model_.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") v = o.version();
  }
  if (v < 0) fail("the model imports no opset of the default ONNX domain");
  if (v < 1 || v > kLastOnnxOpset)
    fail("opset " + std::to_string(v) + " (1 to " + std::to_string(kLastOnnxOpset) + " are read)");
  return v;
}

std::vector<float> Importer::values_of(const onnx::TensorProto& t, int64_t n, size_t width, const std::string& where) {
  const auto type = t.data_type();
  std::vector<float> values(static_cast<size_t>(n));
  if (!t.has_raw_data()) {
    auto take = [&](const auto& field, const char* name) {
      if (field.size() != n) {
        fail(join(
            {where, ": ", std::to_string(field.size()), " ", name, " values for ", std::to_string(n), " elements"}));
      }
      for (int i = 0; i < n; ++i) values[size_t(i)] = float(field.Get(i));
    };
    if (type == onnx::TensorProto_DataType_FLOAT) take(t.float_data(), "float_data");
    if (type == onnx::TensorProto_DataType_DOUBLE) take(t.double_data(), "double_data");
    if (type == onnx::TensorProto_DataType_INT32 || width == 1) take(t.int32_data(), "int32_data");
    if (type == onnx::TensorProto_DataType_INT64) {
      take(t.int64_data(), "int64_data");
      ints_[t.name()].assign(t.int64_data().begin(), t.int64_data().end());
    }
    return values;
  }
  const std::string& raw = t.raw_data();
  if (raw.size() != size_t(n) * width) {
    fail(join({where, ": ", std::to_string(raw.size()), " bytes of data for ", std::to_string(n), " elements"}));
  }
  for (size_t i = 0; i < size_t(n); ++i) {
    const char* p = raw.data() + i * width;
    if (type == onnx::TensorProto_DataType_FLOAT) {
      float v;
      std::memcpy(&v, p, 4);
      values[i] = v;
    } else if (type == onnx::TensorProto_DataType_DOUBLE) {
      double v;
      std::memcpy(&v, p, 8);
      values[i] = float(v);
    } else if (type == onnx::TensorProto_DataType_INT64) {
      int64_t v;
      std::memcpy(&v, p, 8);
      values[i] = float(v);
      ints_[t.name()].push_back(v);
    } else if (width == 1) {
      values[i] = type == onnx::TensorProto_DataType_INT8 ? float(int8_t(*p)) : float(uint8_t(*p));
    } else {
      int32_t v;
      std::memcpy(&v, p, 4);
      values[i] = float(v);
    }
  }
  return values;
}

void Importer::constant_from(const onnx::TensorProto& t, const std::string& where) {
  if (t.name().empty()) fail(where + " has no name");
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) fail(where + ": external data is not read");
  FloatTensor c;
  int64_t n = 1;
  for (const int64_t d : t.dims()) {
    if (d < 0 || (d > 0 && n > kMaxOnnxElements / d)) {
      fail(where + ": dimensions beyond " + std::to_string(kMaxOnnxElements) + " elements");
    }
    n *= d;
    c.shape.push_back(d);
  }
  const auto type = t.data_type();
  size_t width = 0;
  switch (type) {
    case onnx::TensorProto_DataType_INT8:
    case onnx::TensorProto_DataType_UINT8: width = 1; break;
    case onnx::TensorProto_DataType_FLOAT:
    case onnx::TensorProto_DataType_INT32: width = 4; break;
    case onnx::TensorProto_DataType_DOUBLE:
    case onnx::TensorProto_DataType_INT64: width = 8; break;
    default:
      fail(where + ": element type " + onnx::TensorProto_DataType_Name(type) +
           " (float, double, int64, int32, int8, uint8 are read)");
  }
  c.values = values_of(t, n, width, where);
  for (const float v : c.values) {
    if (!std::isfinite(v)) fail(where + ": a value is not finite");
  }
  if (type == onnx::TensorProto_DataType_INT8 || type == onnx::TensorProto_DataType_UINT8) {
    const bool u = type == onnx::TensorProto_DataType_UINT8;
    for (const float v : c.values) {
      if (v < (u ? 0.f : -128.f) || v > (u ? 255.f : 127.f)) fail(where + ": a value is outside its 8-bit type");
    }
    int_type_[t.name()] = u ? 2 : 1;
  }
  g_.constants[t.name()] = std::move(c);
}

void Importer::read_input(const onnx::GraphProto& graph) {
  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const auto& in : graph.input()) {
    if (!g_.constants.count(in.name())) inputs.push_back(&in);
  }
  if (inputs.size() != 1)
    fail(join({"the graph has ", std::to_string(inputs.size()), " inputs besides its initializers (one is imported)"}));
  const onnx::ValueInfoProto& in = *inputs[0];
  const std::string where = "input " + in.name();
  if (!in.type().has_tensor_type()) fail(where + " is not a tensor");
  const auto& tt = in.type().tensor_type();
  if (tt.elem_type() != onnx::TensorProto_DataType_FLOAT) {
    fail(where + ": element type " + onnx::TensorProto_DataType_Name(tt.elem_type()) + " (float inputs are read)");
  }
  std::vector<int64_t> shape;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& d = tt.shape().dim(i);
    if (d.has_dim_value() && d.dim_value() > 0) {
      shape.push_back(d.dim_value());
    } else if (i == 0) {
      shape.push_back(options_.batch);
    } else {
      fail(where + ": dimension " + std::to_string(i) + " is not a fixed size");
    }
  }
  if (shape.empty() || shape.size() > 6) fail(where + ": shape " + shape_text(shape) + " (1 to 6 dimensions)");
  check_size(shape, where);
  g_.input = in.name();
  g_.shapes[in.name()] = shape;
}

void Importer::check_size(const std::vector<int64_t>& shape, const std::string& where) const {
  int64_t n = 1;
  for (const int64_t d : shape) {
    if (d < 1 || n > kMaxOnnxElements / d) fail(where + ": shape " + shape_text(shape) + " is empty or too large");
    n *= d;
  }
}

std::pair<float, int32_t> Importer::qparams(const onnx::NodeProto& n, int i, bool* uint8) {
  const FloatTensor& s = constant(n, i);
  if (s.values.size() != 1 || !(s.values[0] > 0) || !std::isfinite(s.values[0])) {
    fail(n, "the scale " + n.input(i) + " must be one positive value (per-tensor quantization of activations)");
  }
  int32_t zero = 0;
  bool u = false;
  if (i + 1 < n.input_size() && !n.input(i + 1).empty()) {
    const FloatTensor& z = constant(n, i + 1);
    if (z.values.size() != 1) fail(n, "the zero point " + n.input(i + 1) + " must be one value");
    zero = int32_t(z.values[0]);
    u = int_type_[n.input(i + 1)] == 2;
  }
  if (uint8) *uint8 = u;
  return {s.values[0], zero};
}

std::string Importer::fake_quant(const onnx::NodeProto& n, const std::string& x, float scale, int32_t zero, bool u,
                                 const std::string& out) {
  FloatOp op = make(FloatOpKind::kFakeQuant);
  op.inputs = {x};
  op.scale = scale, op.zero = zero;
  op.lo = u ? 0.f : -128.f, op.hi = u ? 255.f : 127.f;
  onnx::NodeProto named = n;
  named.clear_output();
  named.add_output(out);
  add(op, named, g_.shapes[x]);
  return out;
}

std::string Importer::activation(const onnx::NodeProto& n, int i) {
  if (i >= n.input_size() || n.input(i).empty()) fail(n, "input " + std::to_string(i) + " is missing");
  std::string name = resolve(n.input(i));
  if (g_.constants.count(name)) fail(n, "input " + name + " is a constant where an activation is expected");
  if (!g_.shapes.count(name)) {
    fail(n, "reads " + name +
                ", which no earlier node produces and no initializer holds (a cycle, a node out of "
                "order, or a missing initializer)");
  }
  return name;
}

const FloatTensor& Importer::constant(const onnx::NodeProto& n, int i) {
  if (i >= n.input_size() || n.input(i).empty()) fail(n, "input " + std::to_string(i) + " is missing");
  const auto it = g_.constants.find(n.input(i));
  if (it != g_.constants.end()) return it->second;
  if (!g_.shapes.count(resolve(n.input(i)))) {
    fail(n,
         "reads " + n.input(i) + ", which no earlier node produces and no initializer holds (a missing initializer)");
  }
  fail(n, "input " + n.input(i) + " must be a constant (an initializer), not an activation");
}

const onnx::AttributeProto* Importer::attr(const onnx::NodeProto& n, const std::string& name) const {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t Importer::attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback) const {
  const auto* a = attr(n, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto_AttributeType_INT) fail(n, "attribute " + name + " is not an integer");
  return a->i();
}

float Importer::attr_float(const onnx::NodeProto& n, const std::string& name, float fallback) const {
  const auto* a = attr(n, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto_AttributeType_FLOAT) fail(n, "attribute " + name + " is not a float");
  return a->f();
}

std::vector<int64_t> Importer::attr_ints(const onnx::NodeProto& n, const std::string& name) const {
  const auto* a = attr(n, name);
  if (!a) return {};
  if (a->type() != onnx::AttributeProto_AttributeType_INTS) fail(n, "attribute " + name + " is not a list of integers");
  return {a->ints().begin(), a->ints().end()};
}

std::string Importer::attr_string(const onnx::NodeProto& n, const std::string& name,
                                  const std::string& fallback) const {
  const auto* a = attr(n, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto_AttributeType_STRING) fail(n, "attribute " + name + " is not a string");
  return a->s();
}

void Importer::only_attributes(const onnx::NodeProto& n, std::initializer_list<const char*> known) const {
  for (const auto& a : n.attribute()) {
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return a.name() == k; })) {
      fail(n, "attribute " + a.name() + " is not supported");
    }
  }
}

void Importer::window(const onnx::NodeProto& n, FloatOp& op, int64_t kh, int64_t kw) const {
  const auto ks = attr_ints(n, "kernel_shape");
  if (!ks.empty() && (ks.size() != 2 || ks[0] != kh || ks[1] != kw)) {
    fail(n, "attribute kernel_shape " + shape_text(ks) + " disagrees with the weight's " + shape_text({kh, kw}));
  }
  if (kh != kw) fail(n, "attribute kernel_shape " + shape_text({kh, kw}) + ": only square kernels are supported");
  const std::string auto_pad = attr_string(n, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") fail(n, "attribute auto_pad " + auto_pad + " (NOTSET or VALID)");
  const auto strides = attr_ints(n, "strides");
  if (!strides.empty() && (strides.size() != 2 || strides[0] != strides[1] || strides[0] < 1 || strides[0] > 64)) {
    fail(n, "attribute strides " + shape_text(strides) + ": one stride of 1 to 64 for both dimensions");
  }
  const auto pads = attr_ints(n, "pads");
  // (a max pool's padding never wins, so it may have more at the bottom and right: pad_after)
  const bool max = op.kind == FloatOpKind::kMaxPool;
  if (!pads.empty() && max &&
      (pads.size() != 4 || pads[0] != pads[1] || pads[2] != pads[3] || pads[0] < 0 || pads[2] < pads[0] ||
       pads[2] >= kh)) {
    fail(n, "attribute pads " + shape_text(pads) +
                ": the same pads at the top and left, the same or more at the bottom and right, smaller than the "
                "kernel");
  }
  if (!pads.empty() && !max &&
      (pads.size() != 4 || std::any_of(pads.begin(), pads.end(), [&](int64_t p) { return p != pads[0]; }) ||
       pads[0] < 0 || pads[0] >= kh)) {
    fail(n, "attribute pads " + shape_text(pads) + ": equal pads on every side, smaller than the kernel");
  }
  const auto dil = attr_ints(n, "dilations");
  if (std::any_of(dil.begin(), dil.end(), [](int64_t d) { return d != 1; })) {
    fail(n, "attribute dilations " + shape_text(dil) + ": only 1 is supported");
  }
  if (kh < 1 || kh > 64) fail(n, "kernel " + std::to_string(kh) + " (1 to 64)");
  op.kernel = int(kh);
  op.stride = strides.empty() ? 1 : int(strides[0]);
  op.pad = pads.empty() ? 0 : int(pads[0]);
  op.pad_after = pads.empty() ? 0 : int(pads[2] - pads[0]);
}

std::vector<int64_t> Importer::windowed(const onnx::NodeProto& n, const std::vector<int64_t>& in, int64_t channels,
                                        const FloatOp& op) const {
  const int64_t padded = 2 * op.pad + op.pad_after;
  const int64_t oh = (in[2] + padded - op.kernel) / op.stride + 1, ow = (in[3] + padded - op.kernel) / op.stride + 1;
  if (in[2] + padded < op.kernel || in[3] + padded < op.kernel) {
    fail(n, "the kernel " + std::to_string(op.kernel) + " is larger than the padded input " + shape_text(in));
  }
  return {in[0], channels, oh, ow};
}

void Importer::add(FloatOp op, const onnx::NodeProto& n, std::vector<int64_t> shape) {
  check_size(shape, "node " + node_name(n) + " (" + n.op_type() + ") output");
  if (n.output_size() < 1 || n.output(0).empty()) fail(n, "has no output");
  op.onnx_op = n.op_type();
  op.name = node_name(n);
  op.output = n.output(0);
  if (g_.shapes.count(op.output) || g_.constants.count(op.output)) fail(n, "output " + op.output + " is defined twice");
  g_.shapes[op.output] = std::move(shape);
  producer_[op.output] = g_.ops.size();
  g_.ops.push_back(std::move(op));
}

void Importer::alias(const onnx::NodeProto& n, const std::string& to) {
  if (n.output_size() < 1 || n.output(0).empty()) fail(n, "has no output");
  if (g_.shapes.count(n.output(0))) fail(n, "output " + n.output(0) + " is defined twice");
  alias_[n.output(0)] = to;
}

FloatOp* Importer::sole_producer(const std::string& tensor, FloatOpKind kind) {
  const auto it = producer_.find(tensor);
  if (it == producer_.end() || readers_[tensor] != 1) return nullptr;
  FloatOp& op = g_.ops[it->second];
  return op.kind == kind ? &op : nullptr;
}

std::string Importer::new_constant(const std::string& name, FloatTensor t) {
  std::string unique = name;
  for (int i = 1; g_.constants.count(unique) || g_.shapes.count(unique); ++i) unique = name + "." + std::to_string(i);
  g_.constants[unique] = std::move(t);
  return unique;
}

void Importer::node(const onnx::NodeProto& n) {
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    fail(n, "domain " + n.domain() + " (the default ONNX domain is read)");
  if (n.output_size() < 1 || n.output(0).empty()) fail(n, "has no output");
  if (fold_constant(n)) return;
  const auto all = rules();
  const auto rule =
      std::find_if(all.begin(), all.end(), [&](const OperatorRule& r) { return r.op_type == n.op_type(); });
  if (rule == all.end()) fail(n, "operator " + n.op_type() + " is not supported (docs/MODELS.md lists what is)");
  if (opset_ < rule->since || opset_ > rule->until) {
    fail(n, join({"operator ", n.op_type(), " of opset ", std::to_string(opset_), " (it is read in opsets ",
                  std::to_string(rule->since), " to ", std::to_string(rule->until), ")"}));
  }
  (this->*rule->convert)(n);
}
}  // namespace vta::network::onnx_import_detail

namespace vta::network {

using onnx_import_detail::Importer;

const char* to_string(FloatOpKind k) {
  switch (k) {
    case FloatOpKind::kConv: return "conv";
    case FloatOpKind::kDense: return "dense";
    case FloatOpKind::kRelu: return "relu";
    case FloatOpKind::kClip: return "clip";
    case FloatOpKind::kAdd: return "add";
    case FloatOpKind::kScale: return "scale";
    case FloatOpKind::kMaxPool: return "max_pool";
    case FloatOpKind::kGlobalAvgPool: return "global_avg_pool";
    case FloatOpKind::kFlatten: return "flatten";
    case FloatOpKind::kFakeQuant: return "fake_quant";
    case FloatOpKind::kAvgPool: return "avg_pool";
    case FloatOpKind::kConcat: return "concat";
    case FloatOpKind::kUpsample: return "upsample";
    case FloatOpKind::kDilate: return "dilate";
    case FloatOpKind::kLeakyRelu: return "leaky_relu";
  }
  return "?";
}

bool FloatGraph::is_output(const std::string& tensor) const {
  return tensor == output || std::find(extra_outputs.begin(), extra_outputs.end(), tensor) != extra_outputs.end();
}

const std::vector<int64_t>& FloatGraph::shape(const std::string& tensor) const {
  const auto it = shapes.find(tensor);
  if (it == shapes.end()) throw ImportError(name + ": no tensor " + tensor);
  return it->second;
}

FloatGraph import_onnx_bytes(std::string_view bytes, const std::string& what, const ImportOptions& options) {
  if (int64_t(bytes.size()) > kMaxOnnxBytes) {
    throw ImportError(what + ": " + std::to_string(bytes.size()) + " bytes (at most " + std::to_string(kMaxOnnxBytes) +
                      ")");
  }
  if (bytes.empty()) throw ImportError(what + ": not an ONNX model: the file is empty");
  if (options.batch < 1 || options.batch > 4096) throw ImportError(what + ": batch " + std::to_string(options.batch));
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), int(bytes.size()));
  in.SetTotalBytesLimit(int(kMaxOnnxBytes));
  if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    throw ImportError(what + ": not an ONNX model (the protobuf does not parse: truncated or another format)");
  }
  if (!model.has_graph()) throw ImportError(what + ": the model has no graph");
  return Importer(model, what, options).run();
}

std::vector<OnnxOperator> onnx_operators() {
  std::vector<OnnxOperator> out;
  for (const auto& r : Importer::rules()) out.push_back({std::string(r.op_type), r.since, r.until});
  return out;
}

FloatGraph import_onnx(const std::filesystem::path& file, const ImportOptions& options) {
  return import_onnx_bytes(read_file_as<ImportError>(file, uint64_t(kMaxOnnxBytes)), file.string(), options);
}

}  // namespace vta::network
