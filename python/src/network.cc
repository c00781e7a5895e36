// vta._core.network: the network layer (docs/NETWORK.md) for Python: graphs built operator by
// operator or the generated ResNet-18, shift calibration, weights as .npy files, the plain C++
// reference, the executor that runs a graph with its VTA steps on the runtime's device, and models
// imported from ONNX and quantized (docs/MODELS.md).

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <string>
#include <vector>

#include "arrays.h"
#include "bindings.h"
#include "vta/driver/build_config.h"
#include "vta/network/executor.h"
#include "vta/network/npy.h"
#include "vta/network/onnx.h"
#include "vta/network/plan.h"
#include "vta/network/reference.h"
#include "vta/network/resnet18.h"
#include "vta/network/target.h"

namespace py = pybind11;
namespace net = vta::network;

namespace vta::python {
namespace {

std::vector<int8_t> int8_values(const py::array& a, const char* what) {
  if (!a.dtype().is(py::dtype::of<int8_t>())) {
    throw py::type_error(std::string(what) + " is an int8 array, not " + std::string(py::str(a.dtype())));
  }
  auto c_order = py::array_t<int8_t, py::array::c_style | py::array::forcecast>::ensure(a);
  return {c_order.data(), c_order.data() + c_order.size()};
}

// The graph's input from `a`: int8 and of the input's shape exactly (a (32, 32, 3, 1) array holds as
// many values as a (1, 3, 32, 32) input and is not it); GraphError naming both shapes otherwise.
std::vector<int8_t> graph_input(const net::Graph& g, const py::array& a) {
  const std::vector<int64_t>& want = g.tensor(g.input_name()).shape;
  const std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
  if (got != want) {
    auto text = [](const std::vector<int64_t>& shape) {
      std::string t = "(";
      for (size_t i = 0; i < shape.size(); ++i) t += (i ? ", " : "") + std::to_string(shape[i]);
      return t + (shape.size() == 1 ? ",)" : ")");
    };
    throw net::GraphError("the input is " + text(got) + ", not the shape of " + g.name() + "'s input " +
                          g.input_name() + ", " + text(want));
  }
  return int8_values(a, "the input");
}

template <class T>
py::array_t<T> shaped(const std::vector<T>& values, const std::vector<int64_t>& shape) {
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  py::array_t<T> out(dims);
  if (size_t(out.size()) != values.size()) throw std::logic_error("network: a result's size is not its shape's");
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

py::dict step_dict(const net::Step& s) {
  py::dict d;
  d["name"] = s.name;
  d["placement"] = net::to_string(s.placement);
  d["description"] = s.description;
  d["estimated_cycles"] = s.estimated_cycles;
  d["in_place"] = s.in_place;
  return d;
}

net::ResNet18Options resnet18_options(int64_t image, int64_t classes, int64_t batch, int64_t width, uint32_t seed,
                                      bool max_pool_on_vta) {
  net::ResNet18Options o;
  o.image = image, o.classes = classes, o.batch = batch, o.width = width, o.seed = seed;
  o.max_pool_on_vta = max_pool_on_vta;
  return o;
}

std::vector<float> float_values(const py::array& a, int64_t expected, const char* what) {
  auto c_order = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!c_order) throw py::type_error(std::string(what) + " is not a numeric array");
  if (c_order.size() != expected) {
    throw py::value_error(std::string(what) + " has " + std::to_string(c_order.size()) + " values, the model's input " +
                          std::to_string(expected));
  }
  return {c_order.data(), c_order.data() + c_order.size()};
}

// Calibration inputs drawn from a Python iterable one at a time while quantize() runs without the
// GIL (a list, a generator, a dataset): the interpreter is taken for each input only.
class IterableCalibration final : public net::CalibrationSource {
 public:
  // (made and destroyed while the GIL is held: before the call releases it, after it takes it back)
  IterableCalibration(const py::iterable& inputs, int64_t size) : it_(py::iter(inputs)), size_(size) {}
  std::optional<std::vector<float>> next() override {
    py::gil_scoped_acquire gil;
    if (it_ == py::iterator::sentinel()) return std::nullopt;
    std::vector<float> x = float_values(py::cast<py::array>(*it_), size_, "a calibration input");
    ++it_;
    return x;
  }

 private:
  py::iterator it_;
  int64_t size_;
};

void bind_onnx(py::module_& n) {
  py::register_exception<net::ImportError>(n, "ModelImportError", n.attr("GraphError").ptr()).attr("__doc__") =
      "An ONNX model that cannot be imported: the message names the node and the operator or attribute.";
  py::class_<net::QuantizedModel>(n, "QuantizedModel",
                                  "An imported model quantized with power-of-two scales (OnnxModel.quantize): its "
                                  "Graph, each layer's scale and each operator's placement with the reason.")
      .def_property_readonly(
          "graph", [](const net::QuantizedModel& q) -> const net::Graph& { return q.graph; },
          py::return_value_policy::reference_internal, "The quantized Graph (run it with an Executor).")
      .def_property_readonly(
          "softmax", [](const net::QuantizedModel& q) { return q.softmax; },
          "True when the model ends in a softmax (applied to the dequantized output).")
      .def_property_readonly(
          "input_frac_bits", [](const net::QuantizedModel& q) { return q.input.frac_bits; },
          "The input's scale: 2^-input_frac_bits per step.")
      .def_property_readonly(
          "output_scale", [](const net::QuantizedModel& q) { return q.output.scale(); },
          "The float value of one output step.")
      .def_property_readonly(
          "extra_output_scales",
          [](const net::QuantizedModel& q) {
            py::dict out;
            for (size_t i = 0; i < q.extra_outputs.size(); ++i) {
              out[py::str(q.graph.extra_outputs()[i])] = q.extra_outputs[i].scale();
            }
            return out;
          },
          "The float value of one step of each further output, by the graph's tensor name (a model with "
          "several outputs: run()['extra_outputs'] has their integers).")
      .def(
          "quantize_input",
          [](const net::QuantizedModel& q, const py::array& x) {
            const net::TensorDesc& in = q.graph.tensor(q.graph.input_name());
            return shaped(q.quantize_input(float_values(x, in.elements(), "the input")), in.shape);
          },
          "A float input as the graph's int8 input; ValueError for another size.", py::arg("x"))
      .def(
          "dequantize_output",
          [](const net::QuantizedModel& q, const py::array& y) {
            auto c_order = py::array_t<int32_t, py::array::c_style | py::array::forcecast>::ensure(y);
            if (!c_order) throw py::type_error("the output is not an integer array");
            return shaped(q.dequantize_output({c_order.data(), size_t(c_order.size())}),
                          std::vector<int64_t>(c_order.shape(), c_order.shape() + c_order.ndim()));
          },
          "The graph's int32 output as floats.", py::arg("y"))
      .def_property_readonly(
          "layers",
          [](const net::QuantizedModel& q) {
            py::list out;
            for (const auto& l : q.layers) {
              out.append(py::dict(py::arg("tensor") = l.tensor, py::arg("node") = l.op,
                                  py::arg("frac_bits") = l.params.frac_bits, py::arg("shift") = l.shift,
                                  py::arg("clipped") = l.clipped, py::arg("zero") = l.zero,
                                  py::arg("scale_from") = l.scale_from));
            }
            return out;
          },
          "Each quantized tensor: its node, scale (frac_bits), shift, clipped share and source.")
      .def_property_readonly(
          "weights",
          [](const net::QuantizedModel& q) {
            py::list out;
            for (const auto& w : q.weights) {
              out.append(py::dict(py::arg("node") = w.op, py::arg("bits") = w.bits, py::arg("frac_bits") = w.frac_bits,
                                  py::arg("output_error") = w.output_error));
            }
            return out;
          },
          "Each convolution's and dense's weights: their node, bits, scale (frac_bits) and how much their rounding "
          "changes the node's output on the calibration inputs (relative, measured below 8 bits).")
      .def_property_readonly(
          "placements",
          [](const net::QuantizedModel& q) {
            py::list out;
            for (const auto& p : q.placements) {
              out.append(py::dict(py::arg("op") = p.op, py::arg("node") = p.onnx_node,
                                  py::arg("placement") = net::to_string(p.placement), py::arg("reason") = p.reason));
            }
            return out;
          },
          "Each operator: where it runs (vta, host) and why.");
  py::class_<net::FloatGraph>(n, "OnnxModel",
                              "An ONNX model as imported (vta.network.import_onnx): float operators, run by the float "
                              "reference, quantized for VTA by quantize().")
      .def_property_readonly(
          "name", [](const net::FloatGraph& g) { return g.name; }, "The model's graph name.")
      .def_property_readonly(
          "input_shape", [](const net::FloatGraph& g) { return py::tuple(py::cast(g.shape(g.input))); },
          "The input's shape (NCHW).")
      .def_property_readonly(
          "softmax", [](const net::FloatGraph& g) { return g.softmax; }, "True when the model ends in a softmax.")
      .def_property_readonly(
          "ops",
          [](const net::FloatGraph& g) {
            py::list ops;
            for (const auto& o : g.ops) {
              ops.append(py::dict(py::arg("name") = o.name, py::arg("onnx_op") = o.onnx_op,
                                  py::arg("kind") = net::to_string(o.kind), py::arg("output") = o.output));
            }
            return ops;
          },
          "Every operator: {'name', 'onnx_op', 'kind', 'output'}.")
      .def(
          "run_float",
          [](const net::FloatGraph& g, const py::array& x) {
            const std::vector<float> in = float_values(x, g.elements(g.input), "the input");
            net::FloatValues v;
            {
              py::gil_scoped_release unlocked;
              v = net::run_float(g, in);
            }
            return shaped(v.at(g.output), g.shape(g.output));
          },
          "The model's (first) float output on `x` (the float reference); ValueError for another size.", py::arg("x"))
      .def_property_readonly(
          "extra_outputs", [](const net::FloatGraph& g) { return g.extra_outputs; },
          "The names of the model's outputs after the first, in the model's order.")
      .def(
          "quantize",
          [](const net::FloatGraph& g, const py::iterable& calibration, bool use_vta, bool equalize,
             bool round_to_nearest, double max_clipped, int weight_bits, int activation_bits, bool per_channel_weights,
             bool bias_correction, bool weight_rounding_by_output, int eight_bit_layers,
             const std::vector<std::string>& eight_bit_nodes) {
            net::QuantizeOptions o;
            o.use_vta = use_vta, o.equalize = equalize, o.round_to_nearest = round_to_nearest,
            o.max_clipped = max_clipped;
            o.weight_bits = weight_bits, o.activation_bits = activation_bits;
            o.per_channel_weights = per_channel_weights, o.bias_correction = bias_correction;
            o.weight_rounding_by_output = weight_rounding_by_output;
            o.eight_bit_layers = eight_bit_layers, o.eight_bit_nodes = eight_bit_nodes;
            IterableCalibration inputs(calibration, g.elements(g.input));
            py::gil_scoped_release unlocked;
            return net::quantize(g, inputs, build_config(), o);
          },
          "Quantizes the model from calibration inputs (any iterable of float arrays of the input's shape) into "
          "a QuantizedModel; GraphError or ModelImportError name what cannot be quantized or placed. "
          "weight_bits / activation_bits: 4 or 8 (0: the configuration's widths); below 8 bits "
          "per_channel_weights, bias_correction, weight_rounding_by_output (False: --nearest-weights), "
          "eight_bit_layers and eight_bit_nodes as vta-onnx's flags (docs/MODELS.md, \"Four bits\").",
          py::arg("calibration"), py::arg("use_vta") = true, py::arg("equalize") = true,
          py::arg("round_to_nearest") = true, py::arg("max_clipped") = 0.0005, py::arg("weight_bits") = 0,
          py::arg("activation_bits") = 0, py::arg("per_channel_weights") = false, py::arg("bias_correction") = true,
          py::arg("weight_rounding_by_output") = true, py::arg("eight_bit_layers") = 0,
          py::arg("eight_bit_nodes") = std::vector<std::string>{});
  n.def(
      "import_onnx",
      [](const std::filesystem::path& file, int64_t batch) {
        net::ImportOptions o;
        o.batch = batch;
        return net::import_onnx(file, o);
      },
      "The ONNX model in `file` as an OnnxModel (docs/MODELS.md); ModelImportError names the node and the "
      "attribute or operator that cannot be imported.",
      py::arg("file"), py::arg("batch") = 1);
}

}  // namespace

void bind_network(py::module_& m, const py::object& base_error) {
  py::module_ n = m.def_submodule("network", "graphs of quantized operators and their executor");
  py::register_exception<net::GraphError>(n, "GraphError", base_error.ptr()).attr("__doc__") =
      "A graph, weight or input the network layer refuses: the message names the operator and the tensor.";
  py::register_exception<net::NpyError>(n, "NpyError", base_error.ptr()).attr("__doc__") =
      "A .npy file that cannot be read: the message names the file and what is wrong.";

  py::class_<net::Graph>(n, "Graph",
                         "A network of quantized operators on named tensors, each placed on VTA or the host "
                         "(docs/NETWORK.md); every builder method returns its output tensor's name.")
      .def(py::init<std::string>(), py::arg("name"))
      .def_property_readonly("name", &net::Graph::name, "The graph's name.")
      .def("input", &net::Graph::input, "Declares the graph's int8 input `name` of `shape` (NCHW).", py::arg("name"),
           py::arg("shape"))
      .def(
          "constant",
          [](net::Graph& g, const std::string& name, const py::array& values) {
            return g.constant(name, std::vector<int64_t>(values.shape(), values.shape() + values.ndim()),
                              int8_values(values, "a weight"));
          },
          "An int8 constant (a weight) named `name` from a NumPy array.", py::arg("name"), py::arg("values"))
      .def("conv2d", &net::Graph::conv2d,
           "An int8 convolution into int32 (OIHW weight; stride, pad, groups): a VTA GEMM when placed there. Returns "
           "the output tensor's name; GraphError names a bad operand.",
           py::arg("name"), py::arg("x"), py::arg("weight"), py::arg("stride") = 1, py::arg("pad") = 0,
           py::arg("groups") = 1)
      .def("dense", &net::Graph::dense,
           "A fully connected layer into int32 (weight [out, in]). Returns the output tensor's name; GraphError names "
           "a bad operand.",
           py::arg("name"), py::arg("x"), py::arg("weight"))
      .def("shr", &net::Graph::shr,
           "An arithmetic shift right by `shift` (int32). Returns the output tensor's name; GraphError names a bad "
           "operand.",
           py::arg("name"), py::arg("x"), py::arg("shift"))
      .def("add", &net::Graph::add,
           "The element-wise sum of two tensors of one shape (a residual). Returns the output tensor's name; "
           "GraphError names a bad operand.",
           py::arg("name"), py::arg("a"), py::arg("b"))
      .def("relu", &net::Graph::relu, "max(x, 0). Returns the output tensor's name; GraphError names a bad operand.",
           py::arg("name"), py::arg("x"))
      .def("clip", &net::Graph::clip,
           "x clipped to [lo, hi]. Returns the output tensor's name; GraphError names a bad operand.", py::arg("name"),
           py::arg("x"), py::arg("lo"), py::arg("hi"))
      .def("leaky_relu", &net::Graph::leaky_relu,
           "x for x >= 0, else (x * multiplier) >> shift. Returns the output tensor's name; GraphError names a bad "
           "operand.",
           py::arg("name"), py::arg("x"), py::arg("multiplier"), py::arg("shift"))
      .def("cast", &net::Graph::cast,
           "int32 narrowed to int8 (after the shifts and clips that make it fit). Returns the output tensor's name; "
           "GraphError names a bad operand.",
           py::arg("name"), py::arg("x"))
      .def("max_pool", &net::Graph::max_pool,
           "A max pool of `kernel` x `kernel` with `stride` and padding (on the host, or the ALU). Returns the output "
           "tensor's name; GraphError names a bad operand.",
           py::arg("name"), py::arg("x"), py::arg("kernel"), py::arg("stride"), py::arg("pad") = 0,
           py::arg("pad_after") = 0)
      .def("global_avg_pool", &net::Graph::global_avg_pool,
           "The mean over each channel's H x W. Returns the output tensor's name; GraphError names a bad operand.",
           py::arg("name"), py::arg("x"))
      .def("bias_add", &net::Graph::bias_add,
           "x + bias (a per-channel int32 constant) >> shift. Returns the output tensor's name; GraphError names a bad "
           "operand.",
           py::arg("name"), py::arg("x"), py::arg("bias"), py::arg("shift") = 0)
      .def("scale_channels", &net::Graph::scale_channels,
           "x * factors (a per-channel int8 constant), wrapping in 32 bits. Returns the output tensor's name; "
           "GraphError names a bad operand.",
           py::arg("name"), py::arg("x"), py::arg("factors"))
      .def("flatten", &net::Graph::flatten,
           "NCHW as N x (C*H*W). Returns the output tensor's name; GraphError names a bad operand.", py::arg("name"),
           py::arg("x"))
      .def("requantize", &net::Graph::requantize,
           "int32 to int8: shift right, clip (at 0 too with relu), narrow. Returns the output tensor's name; "
           "GraphError names a bad operand.",
           py::arg("name"), py::arg("x"), py::arg("shift"), py::arg("relu"))
      .def("set_output", &net::Graph::set_output, "Makes tensor `name` the graph's output.", py::arg("name"))
      .def(
          "place",
          [](net::Graph& g, const std::string& op, const std::string& where) {
            if (where != "vta" && where != "host") throw py::value_error("place: 'vta' or 'host', not '" + where + "'");
            for (auto& o : g.mutable_ops()) {
              if (o.name != op) continue;
              o.placement = where == "vta" ? net::Placement::kVta : net::Placement::kHost;
              return;
            }
            throw net::GraphError("place: no operator named " + op);
          },
          "Places operator `op` on 'vta' or the 'host'; GraphError names an unknown operator.", py::arg("op"),
          py::arg("where"))
      .def_property_readonly("input_name", &net::Graph::input_name, "The input tensor's name.")
      .def_property_readonly("output_name", &net::Graph::output_name, "The output tensor's name.")
      .def(
          "shape", [](const net::Graph& g, const std::string& t) { return py::tuple(py::cast(g.tensor(t).shape)); },
          "The shape of tensor `t`; GraphError names an unknown tensor.", py::arg("t"))
      .def(
          "weight", [](const net::Graph& g, const std::string& w) { return shaped(g.weight(w), g.tensor(w).shape); },
          "The constant `w` as a NumPy array.", py::arg("w"))
      .def_property_readonly("weight_names", &net::Graph::weight_names, "Every constant's name.")
      .def_property_readonly(
          "ops",
          [](const net::Graph& g) {
            py::list ops;
            for (const auto& o : g.ops()) {
              py::dict d;
              d["name"] = o.name, d["kind"] = net::to_string(o.kind), d["output"] = o.output;
              d["placement"] = net::to_string(o.placement);
              ops.append(d);
            }
            return ops;
          },
          "Every operator: {'name', 'kind', 'output', 'placement'}, in order.")
      .def("save_weights", &net::save_weights, "Writes every weight as `dir`/NAME.npy and `dir`/manifest.json.",
           py::arg("dir"))
      .def("load_weights", &net::load_weights,
           "Reads the weights `save_weights` wrote; GraphError names a missing or mismatched one.", py::arg("dir"))
      .def(
          "calibrate_shifts",
          [](net::Graph& g, const py::array& input, double max_clipped) {
            py::list out;
            for (const auto& r : net::calibrate_shifts(g, graph_input(g, input), max_clipped)) {
              out.append(py::dict(py::arg("op") = r.op, py::arg("shift") = r.shift, py::arg("clipped") = r.clipped,
                                  py::arg("zero") = r.zero));
            }
            return out;
          },
          "Chooses each requantization's shift from a run of `input` so that at most `max_clipped` of its values "
          "clip: [{'op', 'shift', 'clipped', 'zero'}]; GraphError for an input of another size.",
          py::arg("input"), py::arg("max_clipped") = 0.005)
      .def(
          "run_reference",
          [](const net::Graph& g, const py::array& input) {
            const net::Values v = net::run_reference(g, graph_input(g, input), false);
            return shaped(v.at(g.output_name()), g.tensor(g.output_name()).shape);
          },
          "The output of the plain C++ reference on `input` (what every VTA step is verified against).",
          py::arg("input"));

  n.def(
      "resnet18",
      [](int64_t image, int64_t classes, int64_t batch, int64_t width, uint32_t seed, bool max_pool_on_vta) {
        return net::resnet18(resnet18_options(image, classes, batch, width, seed, max_pool_on_vta));
      },
      "ResNet-18 as a Graph with generated weights (seeded): `image` pixels square, `width` channels in the "
      "first layer; VTA's steps are its convolutions. ValueError for sizes VTA's blocks cannot take.",
      py::arg("image") = 224, py::arg("classes") = 1000, py::arg("batch") = 1, py::arg("width") = 64,
      py::arg("seed") = 1, py::arg("max_pool_on_vta") = false);
  n.def(
      "generated_input",
      [](const net::Graph& g, uint32_t seed) {
        return shaped(net::generated_input(g, seed), g.tensor(g.input_name()).shape);
      },
      "A seeded int8 input of the graph's input shape.", py::arg("graph"), py::arg("seed") = 1);

  py::class_<net::Executor>(
      n, "Executor",
      "A graph's VTA steps compiled once, run on the runtime's device (VTA_TARGET), the host "
      "operators in between; `tsim_steps` FIRST:LAST runs those steps cycle by cycle. "
      "max_virtual_threads (1 to 4) bounds the tiling search; compute_issue makes the programs for "
      "a compute stage: 1 one instruction at a time, 2 the two-slot stage of docs/TIMELINE.md "
      "(with its window), 0 the configuration's (COMPUTE_ISSUE). They run on either stage; each "
      "step's estimated_cycles is the estimate of the stage they were made for.")
      // the executor reads its graph for as long as it lives
      // tsim_steps "FIRST:LAST": fast-forward, those steps on detailed_target, the others on VTA_TARGET
      .def(py::init([](const net::Graph& g, const std::string& tsim_steps, const std::string& detailed_target,
                       int max_virtual_threads, int compute_issue, size_t window) {
             std::shared_ptr<net::Target> target;
             if (!tsim_steps.empty()) {
               target = net::fast_forward_target(detailed_target, net::vta_step_names(g, tsim_steps));
             }
             net::PlanOptions plan;
             plan.max_virtual_threads = max_virtual_threads;
             plan.compute_issue = compute_issue;
             plan.window = window;
             return std::make_unique<net::Executor>(g, build_config(), target, plan);
           }),
           py::arg("graph"), py::arg("tsim_steps") = "", py::arg("detailed_target") = "tsim",
           py::arg("max_virtual_threads") = 4, py::arg("compute_issue") = 0, py::arg("window") = 1,
           py::keep_alive<1, 2>())
      .def_property_readonly(
          "steps",
          [](const net::Executor& e) {
            py::list steps;
            for (const auto& s : e.steps()) steps.append(step_dict(s));
            return steps;
          },
          "Each step, VTA or host: {'name', 'placement', 'description', 'estimated_cycles', 'in_place'} "
          "(in_place: a concatenation its inputs' VTA steps write into, nothing run for it).")
      .def(
          "run",
          [](net::Executor& e, const py::array& input, bool verify, int64_t jobs, const std::string& first,
             const std::string& last) {
            const std::vector<int8_t> x = graph_input(e.graph(), input);
            net::RunOptions o;
            o.verify = verify;
            o.jobs = net::resolve_jobs(jobs);
            o.first = first, o.last = last;
            InterruptibleCall call;  // Ctrl-C stops a clocked step: KeyboardInterrupt
            const bool with_reference = net::needs_reference(o);
            const net::NetworkRun r = call.run([&] {
              const net::Values reference = with_reference ? net::run_reference(e.graph(), x) : net::Values{};
              return e.run(x, o, with_reference ? &reference : nullptr);
            });
            py::list steps;
            for (const auto& s : r.steps) {
              py::dict d = step_dict(*s.step);
              d["stats"] = stats_dict(s.stats), d["seconds"] = s.seconds;
              d["mismatches"] = s.mismatches;
              steps.append(d);
            }
            py::dict out;
            out["output"] = shaped(r.output, e.graph().tensor(r.output_name).shape);  // (a slice's: its last step's)
            py::dict extra;
            for (const auto& [name, values] : r.extra_outputs) {
              extra[py::str(name)] = shaped(values, e.graph().tensor(name).shape);
            }
            out["extra_outputs"] = extra;
            out["steps"] = steps, out["vta"] = stats_dict(r.vta), out["seconds"] = r.seconds;
            out["verified"] = r.verified();
            return out;
          },
          "Runs the network on `input`: {'output', 'extra_outputs', 'steps', 'vta', 'seconds', 'verified'} "
          "('extra_outputs': a model's further outputs by name); with `verify`, every "
          "step against the reference. `jobs` > 1 runs that many steps at once (0: one per core; at most 256), "
          "each on a thread and a device of its own from the reference's values of its inputs (the same outputs "
          "and statistics when every step verifies). `first`/`last` (step names) run a slice, its inputs from "
          "the reference, as vta-resnet18 --layers. `input` has the graph input's shape. RunError names a "
          "failed step.",
          py::arg("input"), py::arg("verify") = true, py::arg("jobs") = 1, py::arg("first") = "", py::arg("last") = "");
  bind_onnx(n);
}

}  // namespace vta::python
