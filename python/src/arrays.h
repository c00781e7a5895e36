#pragma once
// NumPy arrays to and from the device's and the device servers' arrays, the argument checks and the
// statistics' dict the bindings share (core.cc, remote.cc, network.cc): element types by name, copies
// in C order, each wrong argument a TypeError or ValueError naming it.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vta/compiler/ir.h"
#include "vta/driver/device.h"
#include "vta/runtime/tensor.h"

namespace vta::python {

/// The DSL's element type named `name`; ValueError for an unknown one.
inline compiler::DType dtype_of(const std::string& name) {
  if (const auto t = compiler::dtype_from_string(name)) return *t;
  throw pybind11::value_error("unknown dtype '" + name + "' (int8, int32, int4, bool)");
}

/// The element type of a NumPy array a device holds (int8 or int32); TypeError for any other.
inline runtime::DType device_dtype(const pybind11::array& a) {
  if (a.dtype().is(pybind11::dtype::of<int8_t>())) return runtime::DType::kInt8;
  if (a.dtype().is(pybind11::dtype::of<int32_t>())) return runtime::DType::kInt32;
  throw pybind11::type_error("a device array holds int8 or int32 elements, not " +
                             std::string(pybind11::str(a.dtype())));
}

/// The element type of a device array made from NumPy array `a` as `dtype` names it: "" the array's
/// own (int8 or int32); "int4" from int8 values (packed two a byte on the device; each in [-8, 7]).
inline runtime::DType device_dtype(const pybind11::array& a, const std::string& dtype) {
  const runtime::DType own = device_dtype(a);
  if (dtype.empty() || dtype == runtime::dtype_name(own)) return own;
  if (dtype == "int4") {
    if (own != runtime::DType::kInt8) {
      throw pybind11::type_error("an int4 device array is made from int8 values in [-8, 7], not " +
                                 std::string(pybind11::str(a.dtype())));
    }
    return runtime::DType::kInt4;
  }
  throw pybind11::type_error("a device array of dtype " + dtype + " cannot be made from " +
                             std::string(pybind11::str(a.dtype())) + " values (int8, int32, or int4 from int8)");
}

using runtime::dtype_name;  // "int8", "int32", "int4" (vta/runtime/tensor.h)

/// Copies a NumPy array (any layout: read in C order) into a device tensor or a remote tensor; the tensor
/// checks the element type and count.
template <class DeviceArray>
void copy_from_numpy(DeviceArray& t, const pybind11::array& a) {
  if (device_dtype(a) == runtime::DType::kInt8) {
    auto c_order = pybind11::array_t<int8_t, pybind11::array::c_style | pybind11::array::forcecast>::ensure(a);
    t.copy_from(std::span<const int8_t>(c_order.data(), size_t(c_order.size())));
  } else {
    auto c_order = pybind11::array_t<int32_t, pybind11::array::c_style | pybind11::array::forcecast>::ensure(a);
    t.copy_from(std::span<const int32_t>(c_order.data(), size_t(c_order.size())));
  }
}

/// A device tensor's or a remote tensor's elements as a new NumPy array of its shape.
template <class DeviceArray>
pybind11::array to_numpy(const DeviceArray& t) {
  std::vector<pybind11::ssize_t> shape(t.shape().begin(), t.shape().end());
  if (t.dtype() != runtime::DType::kInt32) {  // (int4 elements read back as int8 values)
    pybind11::array_t<int8_t> out(shape);
    t.copy_to(std::span<int8_t>(out.mutable_data(), size_t(out.size())));
    return out;
  }
  pybind11::array_t<int32_t> out(shape);
  t.copy_to(std::span<int32_t>(out.mutable_data(), size_t(out.size())));
  return out;
}

inline std::vector<int64_t> shape_of(const pybind11::array& a) { return {a.shape(), a.shape() + a.ndim()}; }

/// The name of a Python object's type, for messages ("numpy.ndarray", "int").
inline std::string type_name(const pybind11::handle& h) {
  const pybind11::object t = pybind11::type::of(h);
  const std::string module = pybind11::str(t.attr("__module__"));
  const std::string name = pybind11::str(t.attr("__qualname__"));
  return module == "builtins" ? name : module + "." + name;
}

/// The call's arguments as `T`s; TypeError naming the argument and what it should have been.
template <class T>
std::vector<const T*> call_arguments(const pybind11::args& arrays, const char* expected) {
  std::vector<const T*> out;
  out.reserve(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!pybind11::isinstance<T>(arrays[i])) {
      throw pybind11::type_error("argument " + std::to_string(i + 1) + " of the call: expected " + expected + ", not " +
                                 type_name(arrays[i]));
    }
    out.push_back(arrays[i].cast<const T*>());
  }
  return out;
}

/// The seven statistics and the cycle count (None when the backend has no clock), by name (kStatFields):
/// what vta.stats(), a session's stats() and a network run's statistics return.
inline pybind11::dict stats_dict(const Stats& s) {
  pybind11::dict d;
  for (const auto& f : kStatFields) d[pybind11::str(std::string(f.name))] = s.*f.member;
  d["cycle_count"] = s.cycle_count ? pybind11::cast(*s.cycle_count) : pybind11::none();
  return d;
}

}  // namespace vta::python
