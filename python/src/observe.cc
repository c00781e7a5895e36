// vta._core: what a run leaves to look at (docs/CAPTURE.md, docs/TIMELINE.md): a built module's cost
// estimate and per-stage timelines without a clocked simulation, timelines as trace-event JSON and SVG,
// captured runs (VTA_CAPTURE=DIR) read back and replayed on any backend.

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "vta/compiler/estimate.h"
#include "vta/driver/build_config.h"
#include "vta/driver/capture.h"
#include "vta/driver/timeline.h"

namespace py = pybind11;

namespace vta::python {

void bind_observability(py::module_& m, const py::object& base_error) {
  py::register_exception<CaptureError>(m, "CaptureError", base_error.ptr());

  py::class_<Timeline>(m, "Timeline")
      .def_readonly("title", &Timeline::title)
      .def_readonly("estimated", &Timeline::estimated)
      .def_readonly("cycles", &Timeline::cycles)
      .def(
          "busy",
          [](const Timeline& t, const std::string& stage) {
            for (int lane = 0; lane < Timeline::kLanes; ++lane) {
              if (stage == Timeline::kLaneNames[lane]) return t.total(lane, Activity::kBusy);
            }
            throw py::value_error("busy: a stage is load, compute or store, not '" + stage + "'");
          },
          py::arg("stage"))
      .def("to_trace_json", &Timeline::to_trace_json);
  m.def("timelines_to_svg", &timelines_to_svg, py::arg("timelines"), py::arg("width") = 1200);
  m.def(
      "estimate_cycles", [](const compiler::Module& mod) { return compiler::estimate_cycles(mod, build_config()); },
      py::arg("module"));
  m.def(
      "estimate_timelines",
      [](const compiler::Module& mod) { return compiler::estimate_timelines(mod, build_config()); }, py::arg("module"));

  py::class_<Capture>(m, "Capture")
      .def_static("load", &Capture::load, py::arg("path"))
      .def_readonly("target", &Capture::target)
      .def_readonly("program", &Capture::program)
      .def_readonly("insn_count", &Capture::insn_count)
      .def(
          "replay",
          [](const Capture& c, const std::string& target) {
            ReplayOptions o;
            o.target = target;
            InterruptibleCall call;
            const ReplayResult r = call.run([&] { return replay(c, o); });
            py::dict d;
            d["matches"] = r.matches(), d["differences"] = r.differences, d["warnings"] = r.warnings;
            return d;
          },
          py::arg("target") = "fsim");
}

}  // namespace vta::python
