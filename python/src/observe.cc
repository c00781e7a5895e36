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
  py::register_exception<CaptureError>(m, "CaptureError", base_error.ptr()).attr("__doc__") =
      "A capture file that cannot be read or replayed: the message names the file and the damage.";

  py::class_<Timeline>(m, "Timeline",
                       "What the load, compute and store stages do over one run, as intervals "
                       "(vta.estimate_timelines; docs/TIMELINE.md).")
      .def_readonly("title", &Timeline::title, "The run's name.")
      .def_readonly("estimated", &Timeline::estimated, "True when estimated from the program, not recorded.")
      .def_readonly("cycles", &Timeline::cycles, "The run's length in cycles.")
      .def(
          "busy",
          [](const Timeline& t, const std::string& stage) {
            for (int lane = 0; lane < Timeline::kLanes; ++lane) {
              if (stage == to_string(kStageOrder[lane])) return t.total(lane, Activity::kBusy);
            }
            throw py::value_error("busy: a stage is load, compute or store, not '" + stage + "'");
          },
          "Cycles `stage` (load, compute, store) spent executing; ValueError for another name.", py::arg("stage"))
      .def("to_trace_json", &Timeline::to_trace_json,
           "Chrome/Perfetto trace-event JSON (open in ui.perfetto.dev): one thread per stage.");
  m.def("timelines_to_svg", &timelines_to_svg,
        "An SVG picture of the timelines stacked on one time axis, `width` pixels wide.", py::arg("timelines"),
        py::arg("width") = 1200);
  m.def(
      "estimate_cycles", [](const compiler::Module& mod) { return compiler::estimate_cycles(mod, build_config()); },
      "A built module's cycles estimated from its program, without a clocked simulation (docs/COMPILER.md).",
      py::arg("module"));
  m.def(
      "estimate_timelines",
      [](const compiler::Module& mod, int compute_issue, bool any_disjoint, size_t window) {
        EstimateOptions o;
        o.compute_issue = compute_issue;
        o.banks = any_disjoint ? AccBanks::kAnyDisjoint : AccBanks::kHalves;
        o.window = window;
        check_stage(o, "estimate_timelines");  // (std::invalid_argument: ValueError, before the call is recorded)
        return compiler::estimate_timelines(mod, build_config(), o);
      },
      "Per device run of the module, its estimated Timeline. compute_issue=1 estimates the compute stage that "
      "runs one instruction at a time, 2 the one that runs an ALU instruction or a load beside a GEMM, 0 the "
      "configuration's (COMPUTE_ISSUE; any_disjoint: any two "
      "disjoint accumulator footprints overlap, a bound; window: the dispatch window of "
      "vta/driver/compute_issue.h, 1 = in program order; docs/TIMELINE.md).",
      py::arg("module"), py::arg("compute_issue") = 0, py::arg("any_disjoint") = false, py::arg("window") = 1);

  py::class_<Capture>(m, "Capture",
                      "A run written by VTA_CAPTURE=DIR (docs/CAPTURE.md): its configuration, program, memory and "
                      "result, replayable on any backend.")
      .def_static("load", &Capture::load, "The capture file at `path`; CaptureError names damage or version.",
                  py::arg("path"))
      .def_readonly("target", &Capture::target, "The backend that ran it.")
      .def_readonly("program", &Capture::program, "The process that ran it.")
      .def_readonly("insn_count", &Capture::insn_count, "Its number of instructions.")
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
          "Runs it again on `target`: {'matches': bool, 'differences': [...], 'warnings': [...]}.",
          py::arg("target") = "fsim");
}

}  // namespace vta::python
