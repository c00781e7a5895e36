// vta._core: sessions on a device server (vta/rpc/session.h, docs/REMOTE.md): modules uploaded as files
// and loaded there, arrays in the server's memory, calls and statistics; every wait bounded by the
// connection's timeouts.

#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "arrays.h"
#include "bindings.h"
#include "vta/compiler/build.h"
#include "vta/rpc/session.h"

namespace py = pybind11;

namespace vta::python {

void bind_remote(py::module_& m) {
  py::class_<rpc::RemoteTensor>(m, "RemoteArray",
                                "An array in a device server's memory (Remote.array, Remote.empty): what a "
                                "RemoteModule is called with. RemoteError when the session has ended.")
      .def_property_readonly(
          "shape", [](const rpc::RemoteTensor& t) { return py::tuple(py::cast(t.shape())); }, "Its shape.")
      .def_property_readonly(
          "dtype", [](const rpc::RemoteTensor& t) { return dtype_name(t.dtype()); }, "int8, int32 or int4.")
      .def_property_readonly("name", &rpc::RemoteTensor::name, "The name it was given (for messages).")
      .def("copyfrom", &copy_from_numpy<rpc::RemoteTensor>,
           "Copies a NumPy array of the same shape to the server; ValueError for another shape or type.",
           py::arg("array"))
      .def("numpy", &to_numpy<rpc::RemoteTensor>, "A NumPy copy of its elements, read from the server.");
  py::class_<rpc::RemoteModule>(m, "RemoteModule",
                                "A module loaded on a device server (Remote.load_module): called with "
                                "RemoteArrays, it runs there; a failed call is a CallError and the session "
                                "goes on.")
      .def_property_readonly("name", &rpc::RemoteModule::name, "The uploaded file's name.")
      .def_property_readonly(
          "arg_names",
          [](const rpc::RemoteModule& f) {
            std::vector<std::string> names;
            for (const auto& a : f.args()) names.push_back(a.name);
            return names;
          },
          "Its arguments' names, in call order.")
      .def("__call__", [](const rpc::RemoteModule& f, const py::args& arrays) {
        const auto tensors = call_arguments<rpc::RemoteTensor>(
            arrays, "a remote array (remote.array(...), on the module's device server)");
        py::gil_scoped_release unlocked;
        f.call(tensors);
      });
  py::class_<rpc::Remote>(m, "Remote",
                          "A session on a device server (vta.connect, vta.local_session): modules uploaded "
                          "and loaded there, arrays in its memory, its device's statistics. Every wait is "
                          "bounded by the session's timeout; errors are RemoteError.")
      .def("upload", py::overload_cast<const std::string&>(&rpc::Remote::upload),
           "Sends the module file at `path` to the server, under its file name.", py::arg("path"))
      .def(
          "upload_bytes",
          [](rpc::Remote& r, const std::string& name, const py::bytes& data) {
            const std::string bytes = data;
            r.upload(name, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
          },
          "Sends a module file's bytes to the server under `name`.", py::arg("name"), py::arg("data"))
      .def("load_module", &rpc::Remote::load_module,
           "The uploaded module `name`, loaded on the server; RemoteError names a missing or broken one.",
           py::arg("name"))
      .def(
          "empty",
          [](rpc::Remote& r, const std::vector<int64_t>& shape, const std::string& dtype, const std::string& name) {
            const compiler::DType t = dtype_of(dtype);
            if (t == compiler::DType::kBool) throw py::type_error("a remote array holds int8, int32 or int4 elements");
            return r.empty(shape, compiler::device_dtype(t), name);
          },
          "A zeroed array of `shape` and `dtype` (int8, int32, int4) in the server's memory.", py::arg("shape"),
          py::arg("dtype"), py::arg("name") = "")
      .def(
          "array",
          [](rpc::Remote& r, const py::array& a, const std::string& name, const std::string& dtype) {
            rpc::RemoteTensor t = r.empty(shape_of(a), device_dtype(a, dtype), name);
            copy_from_numpy(t, a);
            return t;
          },
          "A copy of the NumPy array in the server's memory (dtype \"int4\": int8 values packed two a byte).",
          py::arg("array"), py::arg("name") = "", py::arg("dtype") = "")
      .def(
          "stats", [](rpc::Remote& r) { return stats_dict(r.stats()); },
          "The server device's seven statistics and cycle count (None on the fsim), as vta.stats().")
      .def("clear_stats", &rpc::Remote::clear_stats, "Sets the server device's statistics to zero.")
      .def("flush", &rpc::Remote::flush, "Waits until every request sent so far has been answered.")
      .def_property_readonly("target", &rpc::Remote::target, "The server's backend (fsim, tsim).")
      .def_property_readonly("where", &rpc::Remote::where, "HOST:PORT of the server, or 'local'.")
      .def_property_readonly("round_trips", &rpc::Remote::round_trips,
                             "Requests that waited for an answer so far (the cost of a session).");
  m.def(
      "connect",
      [](const std::string& host, uint16_t port, const std::string& token, double timeout_s) {
        rpc::ConnectionOptions o;
        o.token = token;
        if (!std::isfinite(timeout_s) || timeout_s <= 0 || timeout_s > 86400) {
          throw py::value_error("timeout = " + std::to_string(timeout_s) +
                                " s is out of range (above 0, at most a day)");
        }
        o.timeout = std::chrono::milliseconds(std::max<int64_t>(1, int64_t(timeout_s * 1000)));
        py::gil_scoped_release unlocked;
        return rpc::connect(host, port, o);
      },
      py::arg("host"), py::arg("port"), py::arg("token") = "", py::arg("timeout") = 30.0);
  m.def("local_session", &rpc::local_session, py::arg("target") = "");
}

}  // namespace vta::python
