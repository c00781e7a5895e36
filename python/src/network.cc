// vta._core.network: the network layer (docs/NETWORK.md) for Python: graphs built operator by
// operator or the generated ResNet-18, shift calibration, weights as .npy files, the plain C++
// reference, and the executor that runs a graph with its VTA steps on the runtime's device.

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "vta/driver/build_config.h"
#include "vta/network/executor.h"
#include "vta/network/npy.h"
#include "vta/network/reference.h"
#include "vta/network/resnet18.h"

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
  return d;
}

net::ResNet18Options resnet18_options(int64_t image, int64_t classes, int64_t batch, int64_t width, uint32_t seed,
                                      bool max_pool_on_vta) {
  net::ResNet18Options o;
  o.image = image, o.classes = classes, o.batch = batch, o.width = width, o.seed = seed;
  o.max_pool_on_vta = max_pool_on_vta;
  return o;
}

}  // namespace

void bind_network(py::module_& m, const py::object& base_error) {
  py::module_ n = m.def_submodule("network", "graphs of quantized operators and their executor");
  py::register_exception<net::GraphError>(n, "GraphError", base_error.ptr());
  py::register_exception<net::NpyError>(n, "NpyError", base_error.ptr());

  py::class_<net::Graph>(n, "Graph")
      .def(py::init<std::string>(), py::arg("name"))
      .def_property_readonly("name", &net::Graph::name)
      .def("input", &net::Graph::input, py::arg("name"), py::arg("shape"))
      .def(
          "constant",
          [](net::Graph& g, const std::string& name, const py::array& values) {
            return g.constant(name, std::vector<int64_t>(values.shape(), values.shape() + values.ndim()),
                              int8_values(values, "a weight"));
          },
          py::arg("name"), py::arg("values"))
      .def("conv2d", &net::Graph::conv2d, py::arg("name"), py::arg("x"), py::arg("weight"), py::arg("stride") = 1,
           py::arg("pad") = 0, py::arg("groups") = 1)
      .def("dense", &net::Graph::dense, py::arg("name"), py::arg("x"), py::arg("weight"))
      .def("shr", &net::Graph::shr, py::arg("name"), py::arg("x"), py::arg("shift"))
      .def("add", &net::Graph::add, py::arg("name"), py::arg("a"), py::arg("b"))
      .def("relu", &net::Graph::relu, py::arg("name"), py::arg("x"))
      .def("clip", &net::Graph::clip, py::arg("name"), py::arg("x"), py::arg("lo"), py::arg("hi"))
      .def("cast", &net::Graph::cast, py::arg("name"), py::arg("x"))
      .def("max_pool", &net::Graph::max_pool, py::arg("name"), py::arg("x"), py::arg("kernel"), py::arg("stride"),
           py::arg("pad") = 0)
      .def("global_avg_pool", &net::Graph::global_avg_pool, py::arg("name"), py::arg("x"))
      .def("bias_add", &net::Graph::bias_add, py::arg("name"), py::arg("x"), py::arg("bias"), py::arg("shift") = 0)
      .def("flatten", &net::Graph::flatten, py::arg("name"), py::arg("x"))
      .def("requantize", &net::Graph::requantize, py::arg("name"), py::arg("x"), py::arg("shift"), py::arg("relu"))
      .def("set_output", &net::Graph::set_output, py::arg("name"))
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
          py::arg("op"), py::arg("where"))
      .def_property_readonly("input_name", &net::Graph::input_name)
      .def_property_readonly("output_name", &net::Graph::output_name)
      .def("shape", [](const net::Graph& g, const std::string& t) { return py::tuple(py::cast(g.tensor(t).shape)); })
      .def("weight", [](const net::Graph& g, const std::string& w) { return shaped(g.weight(w), g.tensor(w).shape); })
      .def_property_readonly("weight_names", &net::Graph::weight_names)
      .def_property_readonly("ops",
                             [](const net::Graph& g) {
                               py::list ops;
                               for (const auto& o : g.ops()) {
                                 py::dict d;
                                 d["name"] = o.name, d["kind"] = net::to_string(o.kind), d["output"] = o.output;
                                 d["placement"] = net::to_string(o.placement);
                                 ops.append(d);
                               }
                               return ops;
                             })
      .def("save_weights", &net::save_weights, py::arg("dir"))
      .def("load_weights", &net::load_weights, py::arg("dir"))
      .def(
          "calibrate_shifts",
          [](net::Graph& g, const py::array& input, double max_clipped) {
            py::list out;
            for (const auto& r : net::calibrate_shifts(g, int8_values(input, "the input"), max_clipped)) {
              out.append(py::dict(py::arg("op") = r.op, py::arg("shift") = r.shift, py::arg("clipped") = r.clipped,
                                  py::arg("zero") = r.zero));
            }
            return out;
          },
          py::arg("input"), py::arg("max_clipped") = 0.005)
      .def(
          "run_reference",
          [](const net::Graph& g, const py::array& input) {
            const net::Values v = net::run_reference(g, int8_values(input, "the input"), false);
            return shaped(v.at(g.output_name()), g.tensor(g.output_name()).shape);
          },
          py::arg("input"));

  n.def(
      "resnet18",
      [](int64_t image, int64_t classes, int64_t batch, int64_t width, uint32_t seed, bool max_pool_on_vta) {
        return net::resnet18(resnet18_options(image, classes, batch, width, seed, max_pool_on_vta));
      },
      py::arg("image") = 224, py::arg("classes") = 1000, py::arg("batch") = 1, py::arg("width") = 64,
      py::arg("seed") = 1, py::arg("max_pool_on_vta") = false);
  n.def(
      "generated_input",
      [](const net::Graph& g, uint32_t seed) {
        return shaped(net::generated_input(g, seed), g.tensor(g.input_name()).shape);
      },
      py::arg("graph"), py::arg("seed") = 1);

  py::class_<net::Executor>(n, "Executor")
      // the executor reads its graph for as long as it lives
      .def(py::init([](const net::Graph& g) { return std::make_unique<net::Executor>(g, build_config()); }),
           py::arg("graph"), py::keep_alive<1, 2>())
      .def_property_readonly("steps",
                             [](const net::Executor& e) {
                               py::list steps;
                               for (const auto& s : e.steps()) steps.append(step_dict(s));
                               return steps;
                             })
      .def(
          "run",
          [](net::Executor& e, const py::array& input, bool verify) {
            const std::vector<int8_t> x = int8_values(input, "the input");
            net::RunOptions o;
            o.verify = verify;
            net::NetworkRun r;
            {
              py::gil_scoped_release unlocked;
              const net::Values reference = verify ? net::run_reference(e.graph(), x) : net::Values{};
              r = e.run(x, o, verify ? &reference : nullptr);
            }
            py::list steps;
            for (const auto& s : r.steps) {
              py::dict d = step_dict(*s.step);
              d["stats"] = stats_dict(s.stats), d["seconds"] = s.seconds;
              d["mismatches"] = s.mismatches;
              steps.append(d);
            }
            py::dict out;
            out["output"] = shaped(r.output, e.graph().tensor(e.graph().output_name()).shape);
            out["steps"] = steps, out["vta"] = stats_dict(r.vta), out["seconds"] = r.seconds;
            out["verified"] = r.verified();
            return out;
          },
          py::arg("input"), py::arg("verify") = true);
}

}  // namespace vta::python
