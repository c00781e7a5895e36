#pragma once
// The parts of the vta._core extension, each binding one layer of the C++ stack (python/src/core.cc
// makes the module and binds the compiler, the runtime and the device-server sessions).

#include <pybind11/pybind11.h>

namespace vta {
struct Stats;
}

namespace vta::python {

/// The seven statistics and the cycle count (None when the backend has no clock), by name (kStatFields).
pybind11::dict stats_dict(const Stats& s);

/// vta.network: graphs of quantized operators, ResNet-18, the executor (vta/network/*.h).
void bind_network(pybind11::module_& m, const pybind11::object& base_error);
/// Cost estimates and timelines of modules, captured runs and their replays.
void bind_observability(pybind11::module_& m, const pybind11::object& base_error);

}  // namespace vta::python
