// vta._core: the C++ stack as a Python extension (pybind11). Python is a binding here, never a second
// implementation: every object is the C++ one (expressions, tensors, schedules, modules, device
// tensors), every check and message is the C++ one, raised as the Python exception of its class.
// The pure-Python package around it (python/vta/) only adapts calling conventions (docs/PYTHON.md).

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "arrays.h"
#include "bindings.h"
#include "vta/board/board.h"
#include "vta/compiler/build.h"
#include "vta/compiler/env.h"
#include "vta/compiler/ir.h"
#include "vta/compiler/lower.h"
#include "vta/compiler/schedule.h"
#include "vta/compiler/te.h"
#include "vta/driver/build_config.h"
#include "vta/driver/config.h"
#include "vta/driver/device.h"
#include "vta/driver/energy.h"
#include "vta/rpc/session.h"
#include "vta/runtime/tensor.h"

namespace py = pybind11;
namespace c = vta::compiler;

using vta::python::call_arguments;
using vta::python::copy_from_numpy;
using vta::python::device_dtype;
using vta::python::dtype_name;
using vta::python::dtype_of;
using vta::python::shape_of;
using vta::python::stats_dict;
using vta::python::to_numpy;
using vta::python::type_name;

namespace {

// pybind11 holds objects by shared_ptr<T>, not shared_ptr<const T> (the IR's handles): each handle
// travels in a small value of its own.
struct PyExpr {
  c::Expr e;
};
struct PyTensor {
  c::Tensor t;
};
struct PyOperation {
  c::Operation op;
  c::Tensor output;  ///< the tensor it computes, when reached from it (`res.op`)
};
/// The tensor of an operation reached from its tensor (the tutorials' `create_schedule(res.op)`).
c::Tensor output_of(const PyOperation& o) {
  if (!o.output) {
    throw py::value_error("the operation " + o.op->name + " was not reached from its tensor: pass the tensor");
  }
  return o.output;
}
std::vector<PyTensor> py_tensors(const std::vector<c::Tensor>& ts) {
  std::vector<PyTensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back({t});
  return out;
}
std::vector<c::Tensor> tensors(const std::vector<PyTensor>& ts) {
  std::vector<c::Tensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(t.t);
  return out;
}

/// The value of an integer with __index__ when it fits in 64 bits; none when it does not.
std::optional<int64_t> int64_of(const py::handle& h) {
  const py::int_ v(py::reinterpret_borrow<py::object>(h));
  int overflow = 0;
  const long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow != 0) return std::nullopt;
  return int64_t(n);
}

/// The value of Python's and NumPy's integers (anything with __index__); none for anything else.
/// TypeError for a bool, which is no index or value; ValueError past 64 bits.
std::optional<int64_t> integer(const py::handle& h) {
  if (py::isinstance<py::bool_>(h)) throw py::type_error("a bool is not an index or a value");
  if (PyIndex_Check(h.ptr()) == 0) return std::nullopt;
  const auto v = int64_of(h);
  if (!v) throw py::value_error("the integer " + std::string(py::str(h)) + " does not fit in 64 bits");
  return v;
}

/// Anything a tutorial writes where an expression goes: an expression, an axis, an integer.
c::Expr to_expr(const py::handle& h) {
  if (py::isinstance<c::IterVar>(h)) return h.cast<c::IterVar>().var;
  if (const auto v = integer(h)) return c::make_int(*v);
  if (py::isinstance<PyExpr>(h)) return h.cast<PyExpr>().e;
  throw py::type_error(std::string("expected an expression, an axis or an integer, not ") +
                       std::string(py::str(py::type::of(h).attr("__name__"))));
}

std::vector<c::Expr> to_exprs(const py::args& args) {
  std::vector<c::Expr> out;
  for (const auto& a : args) out.push_back(to_expr(a));
  return out;
}

/// The other operand of an operator on `a`, with the DSL's integer promotion (an integer takes a's type).
c::Expr operand_like(const c::Expr& a, const py::handle& other) {
  const auto v = integer(other);
  return v ? c::make_int_like(a, *v) : to_expr(other);
}

/// A binary operator with the DSL's integer promotion; `reflected`: `other` is the left operand.
PyExpr binary(c::ExprKind k, const c::Expr& a, const py::handle& other, bool reflected) {
  const c::Expr b = operand_like(a, other);
  return {reflected ? c::make_binary(k, b, a) : c::make_binary(k, a, b)};
}

/// & or | (`k`: kBitAnd, kBitOr): logical on two conditions (&: kAnd), bitwise on integers.
PyExpr bitwise(c::ExprKind k, const c::Expr& a, const py::handle& other, bool reflected) {
  const c::Expr b = operand_like(a, other);
  if (k == c::ExprKind::kBitAnd && a->dtype == c::DType::kBool && b->dtype == c::DType::kBool) k = c::ExprKind::kAnd;
  return {reflected ? c::make_binary(k, b, a) : c::make_binary(k, a, b)};
}

/// max or min (`k`): the expression first and an integer on either side taking its type (max(0, x) is
/// max(x, 0), the form the ALU computes in place).
PyExpr commutative(c::ExprKind k, const py::object& a, const py::object& b) {
  return integer(a) && !integer(b) ? binary(k, to_expr(b), a, false) : binary(k, to_expr(a), b, false);
}

PyExpr read(const c::Tensor& t, const py::handle& index) {
  std::vector<c::Expr> idx;
  if (py::isinstance<py::tuple>(index)) {
    for (const auto& i : index.cast<py::tuple>()) idx.push_back(to_expr(i));
  } else {
    idx.push_back(to_expr(index));
  }
  return {t(std::move(idx))};
}

std::vector<const vta::runtime::DeviceTensor*> device_tensors(const py::args& arrays) {
  return call_arguments<vta::runtime::DeviceTensor>(arrays, "a device array (vta.nd.array(...), on this process)");
}

/// A count given from Python (max_host_steps, ...): an int from 0 to `max`; TypeError / ValueError by name.
uint64_t count_argument(const char* name, const py::handle& value, uint64_t max) {
  if (py::isinstance<py::bool_>(value) || PyIndex_Check(value.ptr()) == 0) {
    throw py::type_error(std::string(name) + " must be an integer, not " + type_name(value));
  }
  const auto n = int64_of(value);
  if (!n || *n < 0 || uint64_t(*n) > max) {
    throw py::value_error(std::string(name) + " = " + std::string(py::str(value)) + " is out of range (0 to " +
                          std::to_string(max) + ")");
  }
  return uint64_t(*n);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "The VTA stack's C++ objects (the vta package wraps them; docs/PYTHON.md)";

  // ---- errors: each C++ error class is a Python exception class of its own (a derived class registered
  // after its base: pybind11 tries the translators last registered first)
  py::register_exception<c::ScheduleError>(m, "ScheduleError", PyExc_ValueError).attr("__doc__") =
      "A computation or schedule the compiler refuses: the message names the stage, the tensor and the rule.";
  py::register_exception<c::InternalError>(m, "InternalError", PyExc_RuntimeError).attr("__doc__") =
      "A broken invariant of the compiler itself (a bug to report, with the message).";
  py::register_exception<c::RuntimeError>(m, "RunError", PyExc_RuntimeError).attr("__doc__") =
      "A module's run that failed on the device: the message names the instruction or the call and why.";
  py::register_exception<c::ModuleError>(m, "ModuleError", PyExc_ValueError).attr("__doc__") =
      "A module file that cannot be read or run here: the message names the file and the field.";
  py::register_exception<vta::ConfigError>(m, "ConfigError", PyExc_ValueError).attr("__doc__") =
      "A hardware configuration that is not valid: the message names the key and its bound.";
  py::register_exception<vta::EnergyTableError>(m, "EnergyTableError", PyExc_ValueError).attr("__doc__") =
      "An energy table (VTA_ENERGY_TABLE) that cannot be read: the message names the file and the key.";
  py::register_exception<vta::board::BoardError>(m, "BoardError", PyExc_RuntimeError).attr("__doc__") =
      "A board (VTA_TARGET=fpga) that cannot be used as set up: a malformed setting (board file, VTA_FPGA_*), "
      "a missing device file, a DMA buffer the accelerator does not see; the message names it.";
  auto& remote_error = py::register_exception<vta::rpc::RemoteError>(m, "RemoteError", PyExc_RuntimeError);
  remote_error.attr("__doc__") =
      "A device-server session that failed: connection, handshake, timeout or protocol, named in the message.";
  py::register_exception<vta::rpc::CallError>(m, "CallError", remote_error.ptr()).attr("__doc__") =
      "A call on a device server that did not complete; the session goes on.";
  // an argument pybind11 cannot convert is the caller's type mistake: TypeError (pybind11 says
  // RuntimeError), with the types named (PYBIND11_DETAILED_ERROR_MESSAGES, python/CMakeLists.txt)
  py::register_exception_translator(
      [](std::exception_ptr p) {  // NOLINT(performance-unnecessary-value-param): pybind11 takes a function of this type
        try {
          if (p) std::rethrow_exception(p);
        } catch (const py::cast_error& e) {
          PyErr_SetString(PyExc_TypeError, e.what());
        }
      });

  // ---- the target (vta.get_env())
  py::class_<c::Env>(m, "Env")
      .def(py::init([](const std::string& path) {
             return c::Env(path.empty() ? vta::build_config() : vta::Config::from_file(path));
           }),
           py::arg("config") = "")
      .def_static(
          "from_json",
          [](const std::string& text) { return c::Env(vta::Config::from_json_text(text, "the configuration given")); },
          "The environment of a configuration given as JSON text (vta_config.json's keys); ConfigError names a "
          "wrong key or value.",
          py::arg("text"))
      .def_readonly("BATCH", &c::Env::BATCH)
      .def_readonly("BLOCK_IN", &c::Env::BLOCK_IN)
      .def_readonly("BLOCK_OUT", &c::Env::BLOCK_OUT)
      .def_readonly("INP_WIDTH", &c::Env::INP_WIDTH)
      .def_readonly("WGT_WIDTH", &c::Env::WGT_WIDTH)
      .def_readonly("ACC_WIDTH", &c::Env::ACC_WIDTH)
      .def_property_readonly("inp_dtype", [](const c::Env& e) { return c::to_string(e.inp_dtype); })
      .def_property_readonly("wgt_dtype", [](const c::Env& e) { return c::to_string(e.wgt_dtype); })
      .def_property_readonly("acc_dtype", [](const c::Env& e) { return c::to_string(e.acc_dtype); })
      .def_readonly("inp_scope", &c::Env::inp_scope)
      .def_readonly("wgt_scope", &c::Env::wgt_scope)
      .def_readonly("acc_scope", &c::Env::acc_scope)
      .def_readonly("dma_copy", &c::Env::dma_copy)
      .def_readonly("alu", &c::Env::alu)
      .def("capacity", &c::Env::capacity, py::arg("scope"))
      .def_property_readonly("config_json", [](const c::Env& e) { return e.config.to_json_text(); });

  // ---- expressions
  py::class_<PyExpr>(m, "Expr",
                     "An integer expression of the tensor-expression DSL: tensor reads, axes, constants and the "
                     "operators + - * >> // % < >= on them (an int takes the other operand's type).")
      .def_property_readonly(
          "dtype", [](const PyExpr& x) { return c::to_string(x.e->dtype); }, "Its type: int8, int32, int4 or bool.")
      .def(
          "astype", [](const PyExpr& x, const std::string& t) { return PyExpr{c::cast(dtype_of(t), x.e)}; },
          "The expression converted to `dtype` (int8, int32, int4); ValueError names an unknown type.",
          py::arg("dtype"))
      .def("__add__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kAdd, x.e, y, false); })
      .def("__radd__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kAdd, x.e, y, true); })
      .def("__sub__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kSub, x.e, y, false); })
      .def("__rsub__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kSub, x.e, y, true); })
      .def("__mul__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kMul, x.e, y, false); })
      .def("__rmul__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kMul, x.e, y, true); })
      .def("__neg__",
           [](const PyExpr& x) { return PyExpr{c::make_binary(c::ExprKind::kSub, c::make_int_like(x.e, 0), x.e)}; })
      .def("__rshift__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kShr, x.e, y, false); })
      .def("__rrshift__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kShr, x.e, y, true); })
      .def("__lshift__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kShl, x.e, y, false); })
      .def("__rlshift__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kShl, x.e, y, true); })
      .def("__floordiv__",
           [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kFloorDiv, x.e, y, false); })
      .def("__rfloordiv__",
           [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kFloorDiv, x.e, y, true); })
      .def("__mod__",
           [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kFloorMod, x.e, y, false); })
      .def("__rmod__",
           [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kFloorMod, x.e, y, true); })
      // & and | on conditions are logical, on integers bitwise
      .def("__and__", [](const PyExpr& x, const py::object& y) { return bitwise(c::ExprKind::kBitAnd, x.e, y, false); })
      .def("__rand__", [](const PyExpr& x, const py::object& y) { return bitwise(c::ExprKind::kBitAnd, x.e, y, true); })
      .def("__or__", [](const PyExpr& x, const py::object& y) { return bitwise(c::ExprKind::kBitOr, x.e, y, false); })
      .def("__ror__", [](const PyExpr& x, const py::object& y) { return bitwise(c::ExprKind::kBitOr, x.e, y, true); })
      // (an int on the left of a comparison is Python's reflection: 3 < x is x > 3)
      .def("__lt__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kLt, x.e, y, false); })
      .def("__le__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kLe, x.e, y, false); })
      .def("__gt__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kGt, x.e, y, false); })
      .def("__ge__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kGe, x.e, y, false); })
      .def("__eq__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kEq, x.e, y, false); })
      .def("__ne__", [](const PyExpr& x, const py::object& y) { return binary(c::ExprKind::kNe, x.e, y, false); })
      // (== builds an expression, as TVM's: an expression hashes by identity)
      .def("__hash__", [](const PyExpr& x) { return std::hash<const void*>()(x.e.get()); })
      .def("__bool__",
           [](const PyExpr&) -> bool {
             throw py::type_error("an expression has no truth value (use vta.max/vta.min, not max/min)");
           })
      .def("__str__", [](const PyExpr& x) { return c::to_text(x.e); })
      .def("__repr__", [](const PyExpr& x) { return "<vta.Expr " + c::to_text(x.e) + ">"; });

  py::class_<c::IterVar>(m, "IterVar",
                         "A loop axis of a stage (`s[t].op.axis`, `.op.reduce_axis`, or made by split): what "
                         "schedule primitives take.")
      .def_property_readonly(
          "var", [](const c::IterVar& v) { return PyExpr{v.var}; }, "The axis as an expression.")
      .def_property_readonly(
          "name", [](const c::IterVar& v) { return v.var->name; }, "Its name, as the lowered program prints it.")
      .def_readonly("extent", &c::IterVar::extent, "Its number of iterations.")
      .def_readonly("reduce", &c::IterVar::reduce, "True for a reduction axis.")
      .def("__repr__", [](const c::IterVar& v) {
        return "<vta.IterVar " + v.var->name + " in [0, " + std::to_string(v.extent) + ")>";
      });

  py::class_<PyOperation>(m, "Operation")
      .def_property_readonly("name", [](const PyOperation& o) { return o.op->name; })
      .def_property_readonly("axis", [](const PyOperation& o) { return o.op->axis; })
      .def_property_readonly("reduce_axis", [](const PyOperation& o) { return o.op->reduce_axis; });

  py::class_<PyTensor>(m, "Tensor",
                       "A tensor of the DSL (vta.placeholder, vta.compute): read as `t(i, j)` or `t[i, j]` in "
                       "another compute, scheduled as `s[t]`.")
      .def_property_readonly(
          "name", [](const PyTensor& x) { return x.t->name; }, "Its name (the module's argument names).")
      .def_property_readonly(
          "shape", [](const PyTensor& x) { return py::tuple(py::cast(x.t->shape)); }, "Its shape, a tuple.")
      .def_property_readonly(
          "dtype", [](const PyTensor& x) { return c::to_string(x.t->dtype); }, "Its element type.")
      .def_property_readonly(
          "op",
          [](const PyTensor& x) {
            return PyOperation{x.t->op, x.t};
          },
          "The operation computing it: `.axis` and `.reduce_axis` are its loop axes.")
      .def("__call__", [](const PyTensor& x, const py::args& i) { return PyExpr{x.t(to_exprs(i))}; })
      .def("__getitem__", [](const PyTensor& x, const py::object& i) { return read(x.t, i); })
      .def("__eq__", [](const PyTensor& x, const PyTensor& y) { return x.t == y.t; })
      .def("__hash__", [](const PyTensor& x) { return std::hash<const void*>()(x.t.get()); })
      .def("__repr__", [](const PyTensor& x) { return "<vta.Tensor " + x.t->name + ">"; });

  m.def("placeholder", [](const std::vector<int64_t>& shape, const std::string& name, const std::string& dtype) {
    return PyTensor{c::placeholder(shape, name, dtype_of(dtype))};
  });
  // the body is called once, with the output axes as expressions, and must return an expression
  // axis names none: the C++ default (i0, i1, ...: the tutorials' `lambda *i`)
  m.def("compute", [](const std::vector<int64_t>& shape, const std::optional<std::vector<std::string>>& axis_names,
                      const py::function& body, const std::string& name) {
    const auto call = [&](const c::Indices& i) {
      py::list axes;
      for (const auto& v : i) axes.append(PyExpr{v});
      return to_expr(body(*axes));
    };
    return PyTensor{axis_names ? c::compute(shape, *axis_names, call, name) : c::compute(shape, call, name)};
  });
  m.def("reduce_axis", &c::reduce_axis, py::arg("extent"), py::arg("name"));
  m.def(
      "sum",
      [](const py::object& body, const std::vector<c::IterVar>& axes, const py::object& init) {
        return PyExpr{init.is_none() ? c::sum(to_expr(body), axes) : c::sum(to_expr(body), axes, to_expr(init))};
      },
      py::arg("body"), py::arg("axis"), py::arg("init") = py::none());
  m.def("max", [](const py::object& a, const py::object& b) { return commutative(c::ExprKind::kMax, a, b); });
  m.def("min", [](const py::object& a, const py::object& b) { return commutative(c::ExprKind::kMin, a, b); });
  m.def(
      "config_targets",
      [] {
        std::vector<std::string> names;
        for (const auto t : vta::config_targets()) names.emplace_back(t);
        return names;
      },
      "The TARGET names a configuration takes (vta_config.json).");
  m.def(
      "const",
      [](const py::object& value, const std::string& dtype) {
        const auto v = integer(value);
        if (!v) throw py::type_error("const: the value must be an integer, not " + type_name(value));
        const c::DType t = dtype_of(dtype);
        if (c::wrap(*v, t) != *v) {
          throw py::value_error("const: " + std::to_string(*v) + " does not fit in " + dtype);
        }
        return PyExpr{c::make_int(*v, t)};
      },
      py::arg("value"), py::arg("dtype") = "int32");
  m.def(
      "pad",
      [](const PyTensor& t, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
         const std::string& name) { return PyTensor{c::pad(t.t, before, after, name)}; },
      py::arg("tensor"), py::arg("before"), py::arg("after"), py::arg("name"));

  // ---- schedules
  // (each primitive's rules are the C++ Stage's; a broken one raises ScheduleError naming the stage)
  py::class_<c::Stage>(m, "Stage",
                       "How one tensor is computed (`s[t]`): its loops split, reordered, moved into another "
                       "stage's loop, its data in a buffer, its work on the GEMM core, the ALU or DMA. Every "
                       "primitive raises ScheduleError naming the stage and the rule it breaks.")
      .def_property_readonly(
          "op",
          [](const c::Stage& st) {
            return PyOperation{st.op(), nullptr};
          },
          "The stage's operation: `.axis` (its loops, as split and reordered) and `.reduce_axis`.")
      .def_property_readonly("name", &c::Stage::name, "The tensor's name.")
      .def(
          "split",
          [](c::Stage& st, const c::IterVar& parent, const std::optional<int64_t>& factor,
             const std::optional<int64_t>& nparts) {
            if (factor.has_value() == nparts.has_value()) {
              throw c::ScheduleError("split on stage " + st.name() + ", axis " + parent.var->name +
                                     ": give one of factor and nparts");
            }
            return factor ? st.split(parent, *factor) : st.split_nparts(parent, *nparts);
          },
          "Splits `parent` into (outer, inner): `factor` iterations inside, or `nparts` outside. A factor that "
          "does not divide the extent leaves a shorter last iteration.",
          py::arg("parent"), py::arg("factor") = py::none(), py::arg("nparts") = py::none())
      .def("split_nparts", &c::Stage::split_nparts, "Splits `parent` into (outer, inner) with `nparts` outside.",
           py::arg("parent"), py::arg("nparts"))
      .def(
          "tile",
          [](c::Stage& st, const c::IterVar& x, const c::IterVar& y, int64_t x_factor, int64_t y_factor) {
            const auto t = st.tile(x, y, x_factor, y_factor);
            return py::make_tuple(t[0], t[1], t[2], t[3]);
          },
          "Splits `x` by `x_factor` and `y` by `y_factor`; returns (x.outer, y.outer, x.inner, y.inner) in that "
          "loop order.",
          py::arg("x_parent"), py::arg("y_parent"), py::arg("x_factor"), py::arg("y_factor"))
      .def(
          "fuse",
          [](c::Stage& st, const py::args& axes) -> c::IterVar {
            std::string names;
            for (const auto& a : axes) {
              names += (names.empty() ? "" : ", ") +
                       (py::isinstance<c::IterVar>(a) ? a.cast<c::IterVar>().var->name : std::string(py::str(a)));
            }
            throw c::ScheduleError("fuse on stage " + st.name() + ", axes " + names +
                                   ": refused: VTA's transfers and micro-op loops address SRAM and DRAM affinely in "
                                   "their loops, and the parts of a fused loop (f // n, f % n) are not; split, tile "
                                   "or reorder instead (docs/PYTHON.md)");
          },
          "(TVM's fuse) Refused with a ScheduleError naming the stage and the axes: see the message.")
      .def(
          "reorder", [](c::Stage& s, const py::args& axes) { s.reorder(axes.cast<std::vector<c::IterVar>>()); },
          "Puts the given axes in this order, outermost first (the others keep their places).")
      .def("set_scope", &c::Stage::set_scope,
           "Keeps the tensor in a buffer: env.inp_scope, env.wgt_scope or env.acc_scope.", py::arg("scope"))
      .def("compute_at", &c::Stage::compute_at,
           "Computes this tensor inside `parent`'s loop `axis`, the part that iteration needs.", py::arg("parent"),
           py::arg("axis"))
      .def("pragma", &c::Stage::pragma,
           "Marks the loop at `axis` for a VTA unit: env.dma_copy (a DMA load or store) or env.alu.", py::arg("axis"),
           py::arg("name"))
      .def("tensorize", &c::Stage::tensorize,
           "Maps the loops from `axis` inward onto the GEMM core (env.gemm): one micro-op per block.", py::arg("axis"),
           py::arg("intrinsic"))
      .def("bind", &c::Stage::bind,
           "Binds `axis` to a virtual thread (\"cthread\"): its iterations' loads, GEMMs and stores overlap.",
           py::arg("axis"), py::arg("thread"));
  py::class_<c::Schedule>(m, "Schedule",
                          "The schedule of an output tensor (vta.create_schedule): `s[t]` is the Stage of `t` "
                          "(or of `t.op`).")
      .def(
          "__getitem__", [](c::Schedule& s, const PyTensor& t) -> c::Stage& { return s[t.t]; },
          py::return_value_policy::reference_internal)
      .def(
          "__getitem__", [](c::Schedule& s, const PyOperation& o) -> c::Stage& { return s[output_of(o)]; },
          py::return_value_policy::reference_internal);
  m.def(
      "create_schedule", [](const PyTensor& t) { return c::create_schedule(t.t); }, py::arg("output"));
  m.def(
      "create_schedule", [](const PyOperation& o) { return c::create_schedule(output_of(o)); }, py::arg("output"));
  m.def(
      "lower",
      [](const c::Schedule& s, const std::vector<PyTensor>& args, const c::Env* env, bool vta) {
        c::LowerOptions o;
        o.env = env;
        o.vta = vta;
        return c::to_text(c::lower(s, tensors(args), o));
      },
      py::arg("schedule"), py::arg("args"), py::arg("env") = nullptr, py::arg("vta") = false);

  // ---- modules and device tensors
  py::class_<vta::runtime::DeviceTensor>(
      m, "DeviceArray",
      "An array in the runtime device's memory (vta.array): what a module is called with; read back with numpy().")
      .def(py::init([](const py::array& a, const std::string& name, const std::string& dtype) {
             auto t = std::make_unique<vta::runtime::DeviceTensor>(shape_of(a), device_dtype(a, dtype), name);
             copy_from_numpy(*t, a);
             return t;
           }),
           py::arg("array"), py::arg("name") = "", py::arg("dtype") = "")
      .def_property_readonly(
          "shape", [](const vta::runtime::DeviceTensor& t) { return py::tuple(py::cast(t.shape())); }, "Its shape.")
      .def_property_readonly(
          "dtype", [](const vta::runtime::DeviceTensor& t) { return dtype_name(t.dtype()); },
          "Its element type (int8, int32, int4).")
      .def("numpy", &to_numpy<vta::runtime::DeviceTensor>, "A NumPy copy of its elements.")
      // into the array's own device memory (the element count and type checked by the tensor)
      .def(
          "copyfrom",
          [](vta::runtime::DeviceTensor& t, const py::array& a) {
            if (shape_of(a) != t.shape())
              throw py::value_error("copyfrom: the array's shape is not the device array's");
            copy_from_numpy(t, a);
          },
          "Copies a NumPy array of the same shape in; ValueError for another shape or element type.", py::arg("array"));

  py::class_<c::Module>(m, "Module",
                        "A built program (vta.build): called with its arguments' arrays, f(a, w, out), it runs on "
                        "the runtime's device (VTA_TARGET); RunError names what failed, the next call runs.")
      .def_static("load", &c::Module::load, "The module saved at `path`; ModuleError names what is wrong.",
                  py::arg("path"))
      .def_static("from_json", &c::Module::from_json, "A module from its JSON text (to_json).", py::arg("text"),
                  py::arg("origin") = "<module>")
      .def("save", &c::Module::save, "Writes the module to `path` (a .vtam file: vta run, load_module, a server).",
           py::arg("path"))
      .def("export_library", &c::Module::save, "The tutorials' name for save: the same file.",
           py::arg("path"))  // (the tutorials' name: the same file)
      .def("to_json", &c::Module::to_json, "The module as JSON text: its arguments, target and program.")
      .def_property_readonly(
          "args", [](const c::Module& mod) { return py_tensors(mod.args()); }, "Its arguments, as tensors.")
      .def_property_readonly("target", &c::Module::target,
                             "The backend it was built for (empty: whichever VTA_TARGET names when it runs).")
      .def_property_readonly(
          "program", [](const c::Module& mod) { return c::to_text(mod.program()); },
          "Its program as text (what vta.lower printed).")
      // f(*arrays, max_host_steps=None): one call on the runtime's device, the host's statements bounded
      // (default CallLimits::kDefaultMaxHostSteps); Ctrl-C stops it (KeyboardInterrupt)
      .def("__call__",
           [](const c::Module& mod, const py::args& arrays, const py::kwargs& options) {
             c::CallLimits limits;
             for (const auto& [key, value] : options) {
               if (py::str(key).cast<std::string>() != "max_host_steps")
                 throw py::type_error("a module call takes the arrays and max_host_steps, not " +
                                      py::str(key).cast<std::string>());
               if (!value.is_none()) limits.max_host_steps = count_argument("max_host_steps", value, INT64_MAX);
             }
             const auto tensors = device_tensors(arrays);
             vta::python::InterruptibleCall call;
             limits.cancel = call.cancel();
             call.run([&] { mod(tensors, limits); });
           })
      // (for bench/python_overhead.py: `n` calls from a C++ loop, seconds in all: the same call without Python)
      .def("_time_calls", [](const c::Module& mod, int n, const py::args& arrays) {
        const auto tensors = device_tensors(arrays);
        py::gil_scoped_release unlocked;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) mod(tensors);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      });
  m.def(
      "build",
      [](const c::Schedule& s, const std::vector<PyTensor>& args, const c::Env& env, const std::string& target) {
        c::BuildOptions o;
        o.target = target;
        return c::build(s, tensors(args), env, o);
      },
      py::arg("schedule"), py::arg("args"), py::arg("env"), py::arg("target") = "");

  vta::python::bind_remote(m);  // device-server sessions (remote.cc)

  // ---- the runtime's device of the calling thread
  m.def("runtime_stats", [] { return stats_dict(vta::runtime::runtime_stats()); });
  m.def("clear_runtime_stats", &vta::runtime::clear_runtime_stats);
  m.def("runtime_energy", [] {  // (vta/driver/energy.h, the table VTA_ENERGY_TABLE names)
    const vta::Stats s = vta::runtime::runtime_stats();
    const vta::Config& config = vta::build_config();
    const vta::EnergyTable& table = vta::EnergyTable::from_environment();
    const vta::Energy e = vta::estimate_energy(s, config, table);
    py::dict d;
    d["mac_pj"] = e.mac, d["alu_pj"] = e.alu, d["sram_pj"] = e.sram, d["dram_pj"] = e.dram, d["idle_pj"] = e.idle;
    d["total_pj"] = e.total(), d["table"] = table.name;
    d["power_mw"] = s.cycle_count ? py::cast(e.average_mw(*s.cycle_count, config.hw_freq_mhz())) : py::none();
    return d;
  });
  m.def("backend_names", &vta::backend_names);
  // the target the runtime's device is made for (VTA_TARGET, fsim when unset or empty) and whether a
  // name is a scheme address (rpc://HOST:PORT): the C++ rules themselves, so that Python's
  // Environment.TARGET never differs from what runs
  m.def("default_target", &vta::default_target);
  m.def("is_scheme_address", [](const std::string& target) { return vta::is_scheme_address(target); });
  m.def("_calls_in_progress", [] { return vta::python::InterruptibleCall::calls_in_progress().load(); });

  const py::object value_error = py::module_::import("builtins").attr("ValueError");
  vta::python::bind_network(m, value_error);
  vta::python::bind_observability(m, value_error);
}
