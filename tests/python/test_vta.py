"""The Python package over the C++ stack (label python): the matrix multiply tutorial written with
the package prints the C++ tutorial's programs (tests/golden) and runs verified against NumPy with the
seeds' statistics; every error crosses as the exception of its C++ class; nothing leaks over many
calls. Run by ctest with PYTHONPATH=<build>/python and Debian's python3."""

import faulthandler
import json
import os
import signal
import subprocess
import sys
import threading
import time
import resource
import tempfile
import unittest

import numpy as np

import vta

SOURCE = os.environ.get("VTA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def setUpModule():
    # a hang leaves every thread's stack on stderr (ctest stops the file at 300 s and shows nothing of
    # its own); the suite takes 3-12 s, under load too
    faulthandler.dump_traceback_later(240, exit=True)


def tearDownModule():
    faulthandler.cancel_dump_traceback_later()


def matrix_multiply(env, batch=1, in_channels=1024, out_channels=1024):
    """The seeds' matrix multiply (000/001/003), declared and scheduled with the package."""
    data_shape = (batch // env.BATCH, in_channels // env.BLOCK_IN, env.BATCH, env.BLOCK_IN)
    weight_shape = (out_channels // env.BLOCK_OUT, in_channels // env.BLOCK_IN, env.BLOCK_OUT, env.BLOCK_IN)
    output_shape = (batch // env.BATCH, out_channels // env.BLOCK_OUT, env.BATCH, env.BLOCK_OUT)
    ic = vta.reduce_axis((0, in_channels // env.BLOCK_IN), name="ic")
    ic_tns = vta.reduce_axis((0, env.BLOCK_IN), name="ic_tns")
    data = vta.placeholder(data_shape, name="data", dtype=env.inp_dtype)
    weight = vta.placeholder(weight_shape, name="weight", dtype=env.wgt_dtype)
    data_buf = vta.compute(data_shape, lambda *i: data(*i), "data_buf")
    weight_buf = vta.compute(weight_shape, lambda *i: weight(*i), "weight_buf")
    res_gem = vta.compute(
        output_shape,
        lambda bo, co, bi, ci: vta.sum(
            data_buf[bo, ic, bi, ic_tns].astype(env.acc_dtype) * weight_buf[co, ic, ci, ic_tns].astype(env.acc_dtype),
            axis=[ic, ic_tns]),
        name="res_gem")
    res_shr = vta.compute(output_shape, lambda *i: res_gem(*i) >> env.INP_WIDTH, name="res_shr")
    inp_max = (1 << (env.INP_WIDTH - 1)) - 1
    res_max = vta.compute(output_shape, lambda *i: vta.max(res_shr(*i), 0), "res_max")
    res_min = vta.compute(output_shape, lambda *i: vta.min(res_max(*i), inp_max), "res_min")
    res = vta.compute(output_shape, lambda *i: res_min(*i).astype(env.inp_dtype), name="res")

    s = vta.create_schedule(res)
    b, oc, b_tns, oc_tns = s[res].op.axis
    b_out, b_inn = s[res].split(b, 1 // env.BATCH)
    oc_out, oc_inn = s[res].split(oc, 256 // env.BLOCK_OUT)
    s[res].reorder(b_out, oc_out, b_inn, oc_inn)
    for t in (res_gem, res_shr, res_max, res_min):
        s[t].compute_at(s[res], oc_out)
    b_inn, oc_inn, b_tns, oc_tns = s[res_gem].op.axis
    ic_out, ic_inn = s[res_gem].split(ic, 256 // env.BLOCK_IN)
    s[res_gem].reorder(ic_out, b_inn, oc_inn, ic_inn, b_tns, oc_tns, ic_tns)
    s[data_buf].set_scope(env.inp_scope)
    s[weight_buf].set_scope(env.wgt_scope)
    for t in (res_gem, res_shr, res_max, res_min):
        s[t].set_scope(env.acc_scope)
    s[data_buf].compute_at(s[res_gem], ic_out)
    s[weight_buf].compute_at(s[res_gem], ic_out)
    s[data_buf].pragma(s[data_buf].op.axis[0], env.dma_copy)
    s[weight_buf].pragma(s[weight_buf].op.axis[0], env.dma_copy)
    s[res].pragma(s[res].op.axis[2], env.dma_copy)
    s[res_gem].tensorize(b_tns, env.gemm)
    for t in (res_shr, res_min, res_max):
        s[t].pragma(s[t].op.axis[0], env.alu)
    return s, [data, weight, res]


def reference(a, w, env):
    """The tutorial's result by NumPy: int32 products, shift, clip, int8."""
    n, k = a.shape[0] * a.shape[2], a.shape[1] * a.shape[3]
    m = w.shape[0] * w.shape[2]
    a2 = a.transpose(0, 2, 1, 3).reshape(n, k).astype(np.int32)
    w2 = w.transpose(0, 2, 1, 3).reshape(m, k).astype(np.int32)
    out = np.clip((a2 @ w2.T) >> env.INP_WIDTH, 0, (1 << (env.INP_WIDTH - 1)) - 1).astype(np.int8)
    return out.reshape(n // env.BATCH, env.BATCH, m // env.BLOCK_OUT, env.BLOCK_OUT).transpose(0, 2, 1, 3)


def iterate(node):
    """Every JSON object of a module's program, parents first."""
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from iterate(v)
    elif isinstance(node, list):
        for v in node:
            yield from iterate(v)


def reading_past_its_buffer(module):
    """The JSON of `module` with its first load widened to 4096 elements: past the data's buffer, which
    the runtime refuses when the module runs."""
    text = json.loads(module.to_json())
    first_load = next(n for n in iterate(text["program"]) if n.get("k") == "Call" and n.get("name") == "VTALoadBuffer2D")
    first_load["args"][1] = {"k": "Int", "v": 4096, "t": "int32"}  # x_size
    return json.dumps(text)


class Environment(unittest.TestCase):
    def test_values_of_the_built_configuration(self):
        env = vta.get_env()
        self.assertEqual((env.BATCH, env.BLOCK_IN, env.BLOCK_OUT), (1, 16, 16))
        self.assertEqual((env.inp_dtype, env.wgt_dtype, env.acc_dtype), ("int8", "int8", "int32"))
        self.assertEqual((env.inp_scope, env.acc_scope), ("local.inp_buffer", "local.acc_buffer"))
        self.assertEqual((env.dma_copy, env.alu, env.gemm), ("dma_copy", "alu", "gemm"))
        self.assertEqual(env.INP_WIDTH, 8)
        self.assertIs(vta.get_env(), env)

    def test_another_configuration_file(self):
        env = vta.Environment(os.path.join(SOURCE, "config", "samples", "block8.json"))
        self.assertEqual(env.BLOCK_IN, 8)
        with self.assertRaises(vta.ConfigError):
            vta.Environment(os.path.join(SOURCE, "README.md"))


class TargetRule(unittest.TestCase):
    """Environment.TARGET (the tutorials' "sim" / "tsim") follows the target the C++ runtime runs on:
    VTA_TARGET empty ran the fsim in C++ while Python answered "", which took neither of the tutorials'
    branches."""

    def setUp(self):
        self.saved = os.environ.get("VTA_TARGET")

    def tearDown(self):
        if self.saved is None:
            os.environ.pop("VTA_TARGET", None)
        else:
            os.environ["VTA_TARGET"] = self.saved

    def test_every_kind_of_value(self):
        # VTA_TARGET -> (the device the runtime makes, the tutorials' kind), written out by hand
        cases = {None: ("fsim", "sim"), "": ("fsim", "sim"), "fsim": ("fsim", "sim"), "tsim": ("tsim", "tsim"),
                 "systemc": ("systemc", "tsim"), "rpc://127.0.0.1:9091": ("rpc://127.0.0.1:9091", "sim"),
                 "rpc://[::1]:9091": ("rpc://[::1]:9091", "sim")}
        for value, (device, kind) in cases.items():
            with self.subTest(VTA_TARGET=value):
                if value is None:
                    os.environ.pop("VTA_TARGET", None)
                else:
                    os.environ["VTA_TARGET"] = value
                self.assertEqual(vta._core.default_target(), device)
                self.assertEqual(vta.get_env().TARGET, kind)


class RulesOfTheCompiler(unittest.TestCase):
    """The binding holds no rules of its own: type names, an integer operand's type and the default
    axis names are the compiler's."""

    def test_type_names_promotion_and_axis_names(self):
        for name in ("int8", "int32", "bool"):
            self.assertEqual(vta.placeholder((4,), "t_" + name, name).dtype, name)
        with self.assertRaisesRegex(ValueError, r"unknown dtype 'float32' \(int8, int32, int4, bool\)"):
            vta.placeholder((4,), "f", "float32")
        x = vta.placeholder((2, 3), "x", "int32")
        y = vta.compute((2, 3), lambda *i: x[i] + 1, "y")  # the integer takes int32, the names i0, i1
        self.assertEqual(y.dtype, "int32")
        self.assertEqual([str(a.var) for a in y.op.axis], ["i0", "i1"])
        z = vta.compute((2, 3), lambda r, c: (x[r, c] >> 2).astype("int8"), "z")
        self.assertEqual([str(a.var) for a in z.op.axis], ["r", "c"])
        self.assertEqual(z.dtype, "int8")


class MatrixMultiply(unittest.TestCase):
    def test_programs_equal_the_cpp_tutorials(self):
        env = vta.get_env()
        s, args = matrix_multiply(env)
        program = vta.build(s, args).program
        with open(os.path.join(SOURCE, "tests", "golden", "matrix_multiply.lowered")) as f:
            self.assertEqual(program + "\n", f.read())  # (the listing ends with the tutorial's blank line)
        self.assertEqual(vta.lower(s, args), program)
        self.assertIn("VTALoadBuffer2D", vta.lower(s, args, passes="dma"))
        self.assertNotIn("VTALoadBuffer2D", vta.lower(s, args, passes="loops"))
        with self.assertRaises(ValueError):
            vta.lower(s, args, passes="some")

    def test_runs_verified_with_the_seeds_statistics(self):
        env = vta.get_env()
        s, args = matrix_multiply(env)
        f = vta.build(s, args)
        rng = np.random.default_rng(0)
        a = rng.integers(-128, 128, size=args[0].shape, dtype=np.int8)
        w = rng.integers(-128, 128, size=args[1].shape, dtype=np.int8)
        out = vta.array(np.zeros(args[2].shape, np.int8), "res")
        vta.clear_stats()
        f(vta.array(a, "data"), vta.array(w, "weight"), out)
        np.testing.assert_array_equal(out.numpy(), reference(a, w, env))
        st = vta.stats()
        # the seeds' table (000/001/003)
        seeds = {"inp_load_nbytes": 4096, "wgt_load_nbytes": 1048576, "acc_load_nbytes": 0, "uop_load_nbytes": 20,
                 "out_store_nbytes": 1024, "gemm_counter": 4096, "alu_counter": 192}
        self.assertEqual({k: st[k] for k in seeds}, seeds)
        # its energy: 4,096 GEMM micro-ops of 256 products at 0.3 pJ (45 nm), 1,079,316 bytes of DRAM at
        # 1,950 pJ per 8 bytes (docs/ENERGY.md)
        e = vta.energy()
        self.assertAlmostEqual(e["mac_pj"], 4096 * 256 * 0.3, places=3)
        self.assertAlmostEqual(e["dram_pj"], (4096 + 1048576 + 20 + 1024) * 1950 / 8, places=3)
        self.assertAlmostEqual(e["total_pj"], sum(e[k] for k in ("mac_pj", "alu_pj", "sram_pj", "dram_pj", "idle_pj")))
        self.assertEqual(e["table"], "45nm")

    def test_module_files_round_trip(self):
        env = vta.get_env()
        s, args = matrix_multiply(env)
        f = vta.build(s, args)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gemm.vtam")
            f.save(path)
            g = vta.load_module(path)
        self.assertEqual(g.program, f.program)
        self.assertEqual([t.name for t in g.args], ["data", "weight", "res"])


class Surface(unittest.TestCase):
    """The calls the package exposes that the tutorials do not make, each against what it must give."""

    def test_expressions_axes_and_stages(self):
        env = vta.get_env()
        x = vta.placeholder((2, 8), "x", "int32")
        self.assertEqual((x.name, x.shape, x.dtype), ("x", (2, 8), "int32"))
        y = vta.compute((2, 8), lambda i, j: vta.max(x(i, j) // 2 - (x[i, j] % 3), 0) * 2 + 1, "y")
        self.assertEqual([a.name for a in y.op.axis], ["i", "j"])
        self.assertEqual(y.op.axis[1].extent, 8)
        self.assertEqual(y.op.name, "y")
        cond = vta.compute((2, 8), lambda i, j: (x(i, j) < 3).astype("int32") + (x(i, j) >= 5).astype("int32"), "c")
        self.assertEqual(cond.dtype, "int32")
        k = vta.reduce_axis(8, "k")
        self.assertTrue(k.reduce)
        z = vta.compute((2,), lambda i: vta.sum(x(i, k), axis=k, init=x(i, 0)), "z")
        self.assertEqual([a.name for a in z.op.reduce_axis], ["k"])
        s = vta.create_schedule(y)
        outer, inner = s[y].split_nparts(s[y].op.axis[1], 2)
        self.assertEqual((outer.extent, inner.extent), (2, 4))
        s[y].reorder(outer, s[y].op.axis[0], inner)
        loops = vta.lower(s, [x, y], passes="loops")
        self.assertIn("for (j.outer: int32, 0, 2)", loops)
        # the same results as the plain loops, by the interpreter's reference run of the lowered program
        self.assertIn("max(", loops)
        with self.assertRaises(vta.ScheduleError):
            s[y].bind(outer, "threadIdx.x")
        p = vta.pad(x, [1, 0], [1, 0], "p")
        self.assertEqual(p.shape, (4, 8))
        with self.assertRaises(vta.ScheduleError):
            vta.reduce_axis((1, 4), "bad")
        with self.assertRaises(vta.ScheduleError):
            vta.compute((2, 8), lambda i: x(i, 0), "wrong_arity")
        self.assertGreater(env.capacity(env.acc_scope), 0)
        self.assertEqual(env.capacity("global"), 0)
        self.assertIn("fsim", vta.backends())
        self.assertIn('"LOG_BATCH": 0', env.config_json)

    def test_device_arrays(self):
        a = vta.array(np.arange(32, dtype=np.int32).reshape(2, 16), "a")
        self.assertEqual((a.shape, a.dtype), ((2, 16), "int32"))
        np.testing.assert_array_equal(a.numpy(), np.arange(32).reshape(2, 16))
        a.copyfrom(np.ones((2, 16), np.int32))
        np.testing.assert_array_equal(a.numpy(), np.ones((2, 16)))
        with self.assertRaises(ValueError):
            a.copyfrom(np.ones((16, 2), np.int32))
        t = vta.array(np.arange(16, dtype=np.int8).reshape(4, 4).T)  # not C-contiguous: copied in C order
        np.testing.assert_array_equal(t.numpy(), np.arange(16).reshape(4, 4).T)

    def test_int4_arrays_are_int8_values_packed_two_a_byte(self):
        values = np.array([[-8, 7, 0, -1], [3, -4, 5, -6]], np.int8)
        a = vta.array(values, "a", dtype="int4")
        self.assertEqual((a.shape, a.dtype), ((2, 4), "int4"))
        np.testing.assert_array_equal(a.numpy(), values)
        with self.assertRaisesRegex(ValueError, "element 1 is 8, outside int4's"):
            vta.array(np.array([0, 8], np.int8), dtype="int4")
        with self.assertRaisesRegex(TypeError, "made from int8 values"):
            vta.array(np.zeros(4, np.int32), dtype="int4")
        self.assertEqual(str(vta.placeholder((2, 16), "w", "int4").dtype), "int4")


class Errors(unittest.TestCase):
    def test_each_cpp_error_class_is_its_python_exception(self):
        env = vta.get_env()
        data = vta.placeholder((1, 4, 1, 16), "data", "int8")
        with self.assertRaisesRegex(vta.ScheduleError, "type mismatch"):
            data[0, 0, 0, 0] + data[0, 0, 0, 0].astype("int32")
        with self.assertRaisesRegex(vta.ScheduleError, "has 4 dimensions, read with 2"):
            data(0, 0)
        s, args = matrix_multiply(env)
        with self.assertRaises(vta.ScheduleError):
            s[args[2]].split(s[args[2]].op.axis[1], 3)  # 64 blocks do not split by 3
        with self.assertRaisesRegex(vta.ModuleError, "not JSON"):
            vta.Module.from_json("{")
        with self.assertRaises(TypeError):
            data["i"]
        with self.assertRaises(TypeError):
            data[True, 0, 0, 0]
        self.assertEqual(str(data[np.int64(0), 1, 0, 0] >> np.int32(2)), str(data[0, 1, 0, 0] >> 2))
        with self.assertRaises(TypeError):
            vta.array(np.zeros(4, np.float32))
        self.assertTrue(issubclass(vta.ScheduleError, ValueError))

    def test_a_failed_run_raises_and_the_next_one_runs(self):
        env = vta.get_env()
        s, args = matrix_multiply(env)
        f = vta.build(s, args)
        small = vta.array(np.zeros((1, 4, 1, 16), np.int8))
        with self.assertRaisesRegex(ValueError, "argument data has another shape"):
            f(small, small, small)
        # a module whose first load reads past its buffer: the runtime refuses it, the call raises
        g = vta.Module.from_json(reading_past_its_buffer(f))
        with self.assertRaisesRegex(vta.RunError, "VTALoadBuffer2D"):
            g(vta.array(np.zeros(args[0].shape, np.int8)), vta.array(np.zeros(args[1].shape, np.int8)),
              vta.array(np.zeros(args[2].shape, np.int8)))
        a = np.ones(args[0].shape, np.int8)
        w = np.ones(args[1].shape, np.int8)
        out = vta.array(np.zeros(args[2].shape, np.int8))
        f(vta.array(a), vta.array(w), out)
        np.testing.assert_array_equal(out.numpy(), reference(a, w, env))


class RemoteSessions(unittest.TestCase):
    """A device-server session (vta.local_session: a server in this process, the code path of connect)."""

    def test_a_module_file_runs_on_the_server(self):
        env = vta.get_env()
        s, args = matrix_multiply(env)
        rng = np.random.default_rng(1)
        a = rng.integers(-128, 128, size=args[0].shape, dtype=np.int8)
        w = rng.integers(-128, 128, size=args[1].shape, dtype=np.int8)
        remote = vta.local_session("fsim")
        self.assertEqual(remote.target, "fsim")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gemm.vtam")
            vta.build(s, args).save(path)
            remote.upload(path)
            f = remote.load_module("gemm.vtam")
        self.assertEqual(f.arg_names, ["data", "weight", "res"])
        out = remote.empty(args[2].shape, "int8", "res")
        remote.clear_stats()
        f(remote.array(a, "data"), remote.array(w, "weight"), out)
        np.testing.assert_array_equal(out.numpy(), reference(a, w, env))
        self.assertEqual(remote.stats()["gemm_counter"], 4096)
        with self.assertRaisesRegex(vta.RemoteError, "nothing named other.vtam"):
            remote.load_module("other.vtam")
        with self.assertRaises(ValueError):
            f(out, out, out)  # shapes checked before anything is sent

    def test_a_failing_call_is_a_call_error_and_the_session_goes_on(self):
        env = vta.get_env()
        s, args = matrix_multiply(env)
        good = vta.build(s, args)
        remote = vta.local_session("fsim")
        remote.upload_bytes("bad.vtam", reading_past_its_buffer(good).encode())
        f = remote.load_module("bad.vtam")
        arrays = [remote.empty(t.shape, t.dtype) for t in args]
        with self.assertRaises(vta.CallError):
            f(*arrays)
        self.assertTrue(issubclass(vta.CallError, vta.RemoteError))
        remote.upload_bytes("good.vtam", good.to_json().encode())
        remote.load_module("good.vtam")(*arrays)  # the session serves on

    def test_connect_refuses_a_closed_port_by_name(self):
        with self.assertRaisesRegex(vta.RemoteError, "127.0.0.1:1"):
            vta.connect("127.0.0.1", 1, timeout=5)



def interrupt_when_started():
    """Sends this process SIGINT once a module call is in progress (at most 60 s from now)."""
    deadline = time.monotonic() + 60
    while vta._core._calls_in_progress() == 0 and time.monotonic() < deadline:
        time.sleep(0.0005)
    os.kill(os.getpid(), signal.SIGINT)


class Interrupts(unittest.TestCase):
    def test_ctrl_c_stops_a_long_call_and_the_next_one_runs(self):
        """A module whose host loops would run for hours: SIGINT, sent once the call has started, stops
        it with KeyboardInterrupt; the module runs again afterwards."""
        env = vta.get_env()
        s, args = matrix_multiply(env)
        config = json.loads(vta.build(s, args).to_json())["config"]
        spin = {"format": "vta-module", "version": 1, "config": config, "target": "", "tensors": [], "args": [],
                "vars": ["i", "j"],
                "program": {"k": "For", "var": 0, "extent": 1 << 32,
                            "body": {"k": "For", "var": 1, "extent": 1 << 8, "body": {"k": "Seq", "seq": []}}}}
        f = vta.Module.from_json(json.dumps(spin))
        with self.assertRaisesRegex(vta.RunError, "max_host_steps"):
            f()  # over the default bound: refused before anything runs

        sender = threading.Thread(target=interrupt_when_started)
        sender.start()
        start = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            f(max_host_steps=1 << 42)
        sender.join()
        self.assertLess(time.monotonic() - start, 60)
        with self.assertRaises(TypeError):
            f(max_steps=1)
        small = json.loads(json.dumps(spin))
        small["program"]["extent"] = 2
        vta.Module.from_json(json.dumps(small))()  # runs to its end


class Reliability(unittest.TestCase):
    """Issue 46's defects, each reproduced: sizes the C++ checks, an executor that keeps its own graph,
    misuses named with the argument and the expected type, signals during clocked runs."""

    def test_board_setting_errors_are_board_errors(self):
        """A malformed board setting or a board that is not there is vta.BoardError (a RuntimeError)
        naming the setting or the file, as the programs name them; it was a plain ValueError or
        RuntimeError."""
        script = ("import numpy, vta\n"
                  "try:\n"
                  "    vta._core.DeviceArray(numpy.zeros(16, numpy.int8))\n"
                  "except vta.BoardError as e:\n"
                  "    print('BoardError', isinstance(e, RuntimeError), e)\n")
        for env, says in [({"VTA_FPGA_STALL_SECONDS": "soon"}, 'VTA_FPGA_STALL_SECONDS="soon" is not a number'),
                          ({"VTA_FPGA_DMA_SYSFS": "/nonexistent"}, "/nonexistent/phys_addr")]:
            environment = dict(os.environ, VTA_TARGET="fpga", **env)
            environment.pop("VTA_FPGA_BOARD", None)
            r = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True,
                               timeout=60, check=False)
            self.assertIn("BoardError True", r.stdout, r.stderr)
            self.assertIn(says, r.stdout)

    def test_sizes_are_checked_by_the_cpp_they_reach(self):
        import vta.network as vn
        g = vn.resnet18(image=32, width=16)
        with self.assertRaisesRegex(vn.GraphError, r"the input is \(7,\), not the shape of resnet18's input data, "
                                                   r"\(1, 3, 32, 32\)"):
            g.calibrate_shifts(np.ones(7, np.int8))  # read past the buffer before
        with self.assertRaisesRegex(vn.GraphError, r"the input is \(32, 32, 3, 1\)"):  # as many values, another shape
            g.calibrate_shifts(np.ones((32, 32, 3, 1), np.int8))
        for kwargs, message in [({"image": 2 ** 31}, "image 2147483648 is out of range"),
                                ({"width": 2 ** 20}, "width 1048576 is out of range"),
                                ({"image": 33}, "a multiple of 32"), ({"batch": 65}, "batch 65 is out of range")]:
            with self.assertRaisesRegex(vn.GraphError, message):
                vn.resnet18(**kwargs)
        t = vn.Graph("t")
        with self.assertRaisesRegex(vn.GraphError, r"shape \(-1, 3, 8, 8\): every dimension must be >= 1"):
            t.input("x", [-1, 3, 8, 8])
        with self.assertRaisesRegex(vn.GraphError, "more than 268435456 elements"):
            t.input("x", [1, 3, 2 ** 20, 2 ** 20])

    def test_an_executors_programs_for_another_compute_stage(self):
        import vta.network as vn
        g = vn.resnet18(image=32, width=16)
        x = vn.generated_input(g)
        g.calibrate_shifts(x)
        today = vn.Executor(g)
        two = vn.Executor(g, compute_issue=2, window=8)  # docs/TIMELINE.md: the two-slot stage
        self.assertTrue(two.run(x)["verified"])
        estimate = lambda ex: sum(s["estimated_cycles"] for s in ex.steps)  # noqa: E731
        self.assertLess(estimate(two), estimate(today))  # each step's estimate is its own stage's
        self.assertTrue(vn.Executor(g, max_virtual_threads=1).run(x)["verified"])
        for bad in ({"compute_issue": 3}, {"window": 2}, {"max_virtual_threads": 5}):
            with self.assertRaises(ValueError):
                vn.Executor(g, **bad)

    def test_an_executor_keeps_its_own_graph(self):
        import vta.network as vn
        g = vn.resnet18(image=32, width=16)
        x = vn.generated_input(g)
        g.calibrate_shifts(x)
        ex = vn.Executor(g)
        steps = len(ex.steps)
        out = g.output_name
        for i in range(100):  # the graph grows (its operators move in memory) after the executor was made
            out = g.relu("extra%d" % i, out)
        del g
        run = ex.run(x)
        self.assertTrue(run["verified"])
        self.assertEqual(len(ex.steps), steps)

    def test_misuses_name_the_argument_and_the_expected_type(self):
        env = vta.get_env()
        s, args = matrix_multiply(env)
        f = vta.build(s, args)
        arrays = [vta.array(np.zeros(a.shape, np.int8)) for a in args]
        with self.assertRaisesRegex(TypeError, "argument 1 of the call: expected a device array .*, not numpy.ndarray"):
            f(np.zeros(args[0].shape, np.int8), arrays[1], arrays[2])
        with self.assertRaisesRegex(TypeError, "argument 1 of the call: expected a device array .*, not int"):
            f(1, 2, 3)
        for value, error, message in [(-1, ValueError, "max_host_steps = -1 is out of range"),
                                      (2 ** 64, ValueError, "max_host_steps = 18446744073709551616 is out of range"),
                                      ("x", TypeError, "max_host_steps must be an integer, not str")]:
            with self.assertRaisesRegex(error, message):
                f(*arrays, max_host_steps=value)
        data = vta.placeholder((1, 4, 1, 16), "data", "int8")
        with self.assertRaisesRegex(ValueError, "does not fit in 64 bits"):
            data[0, 0, 0, 0] * 2 ** 70
        with self.assertRaisesRegex(ValueError, "timeout = nan s is out of range"):
            vta.connect("127.0.0.1", 1, timeout=float("nan"))
        with self.assertRaisesRegex(TypeError, "incompatible function arguments"):
            vta.network.resnet18(image="big")  # pybind11's own conversions: TypeError, types named
        s2, args2 = matrix_multiply(env)
        s2[args2[2]].set_scope("bogus")
        with self.assertRaisesRegex(vta.ScheduleError, "scope 'bogus', which VTA does not have"):
            vta.build(s2, args2)

    def test_sigint_during_a_clocked_call_raises_keyboard_interrupt(self):
        """SIGINT while a module runs (on the tsim when the suite runs there: the signal came during a
        clocked run, which lost it before) raises KeyboardInterrupt, every time."""
        env = vta.get_env()
        s, args = matrix_multiply(env)
        f = vta.build(s, args)
        arrays = [vta.array(np.zeros(a.shape, np.int8)) for a in args]
        for _ in range(3):
            sender = threading.Thread(target=interrupt_when_started)
            sender.start()
            with self.assertRaises(KeyboardInterrupt):
                while True:  # calls until the signal comes during one
                    f(*arrays)
            sender.join()
        f(*arrays)  # and the next call runs

    def test_sigterm_during_a_clocked_call_ends_the_process(self):
        """SIGTERM during a module call on the tsim does what Python does with SIGTERM: the process
        ends by the signal, promptly (it was ignored until the run finished, then lost)."""
        if "tsim" not in vta.backends():
            self.skipTest("built without the tsim")
        child = subprocess.Popen(
            [sys.executable, "-c", "import sys; sys.path.insert(0, %r); import test_vta as t, vta, numpy as np\n"
             "env = vta.get_env(); s, args = t.matrix_multiply(env); f = vta.build(s, args)\n"
             "a = [vta.array(np.zeros(x.shape, np.int8)) for x in args]\n"
             "print('running', flush=True)\n"
             "while True: f(*a)\n" % os.path.dirname(os.path.abspath(__file__))],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, VTA_TARGET="tsim"))
        try:
            self.assertEqual(child.stdout.readline().strip(), b"running")
            time.sleep(0.5)
            child.send_signal(signal.SIGTERM)
            child.wait(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        self.assertEqual(child.returncode, -signal.SIGTERM, child.stderr.read().decode())


class Observability(unittest.TestCase):
    def test_estimates_and_timelines_of_a_module(self):
        env = vta.get_env()
        s, args = matrix_multiply(env)
        f = vta.build(s, args)
        timelines = vta.estimate_timelines(f)
        self.assertTrue(timelines and all(t.estimated for t in timelines))
        self.assertEqual(vta.estimate_cycles(f), sum(t.cycles for t in timelines))
        self.assertEqual(vta.estimate_cycles(f), 138280)  # docs/COMPILER.md: the tsim runs it in 138,233
        self.assertGreater(timelines[0].busy("compute"), 0)
        self.assertIn('"traceEvents"', timelines[0].to_trace_json())
        self.assertIn("<svg", vta.timelines_to_svg(timelines))
        with self.assertRaises(ValueError):
            timelines[0].busy("fetch")
        # the two-instruction compute stage (docs/TIMELINE.md): never slower, and a bound below it
        two = sum(t.cycles for t in vta.estimate_timelines(f, compute_issue=2))
        bound = sum(t.cycles for t in vta.estimate_timelines(f, compute_issue=2, any_disjoint=True))
        self.assertLessEqual(bound, two)
        self.assertLessEqual(two, 138280)
        windowed = sum(t.cycles for t in vta.estimate_timelines(f, compute_issue=2, window=8))
        self.assertLessEqual(windowed, 138280)
        with self.assertRaises(ValueError):
            vta.estimate_timelines(f, compute_issue=3)
        with self.assertRaises(ValueError):
            vta.estimate_timelines(f, window=2)  # a window needs the two-slot stage

    def test_a_captured_run_replays_on_another_backend(self):
        with tempfile.TemporaryDirectory() as d:
            # a process of its own: the capturing device is made when the runtime's device is first used
            code = ("import numpy as np, vta, test_vta\n"
                    "s, args = test_vta.matrix_multiply(vta.get_env())\n"
                    "f = vta.build(s, args)\n"
                    "f(*[vta.array(np.ones(t.shape, np.int8)) for t in args])\n")
            env = dict(os.environ, VTA_CAPTURE=d, VTA_TARGET="fsim")
            subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120,
                           cwd=os.path.dirname(os.path.abspath(__file__)))
            files = sorted(os.listdir(d))
            self.assertEqual(len(files), 1, files)
            capture = vta.Capture.load(os.path.join(d, files[0]))
            self.assertEqual(capture.target, "fsim")
            replayed = capture.replay("tsim" if "tsim" in vta.backends() else "fsim")
            self.assertTrue(replayed["matches"], replayed["differences"])
        with self.assertRaises(vta.CaptureError):
            vta.Capture.load(os.path.join(SOURCE, "README.md"))


class Networks(unittest.TestCase):
    def test_a_small_resnet18_runs_verified_step_by_step(self):
        import vta.network as vn
        g = vn.resnet18(image=64, classes=10, width=16, seed=3)
        x = vn.generated_input(g, seed=3)
        self.assertEqual(x.shape, (1, 3, 64, 64))
        reports = g.calibrate_shifts(x)
        self.assertTrue(all(r["clipped"] <= 0.005 for r in reports))
        ex = vn.Executor(g)
        self.assertTrue(any(s["placement"] == "vta" for s in ex.steps))
        run = ex.run(x)
        self.assertTrue(run["verified"])
        np.testing.assert_array_equal(run["output"], g.run_reference(x))
        self.assertEqual(run["output"].shape, (1, 10))
        vta_steps = [s for s in run["steps"] if s["placement"] == "vta"]
        self.assertEqual(sum(s["stats"]["gemm_counter"] for s in vta_steps), run["vta"]["gemm_counter"])
        self.assertTrue(all(s["mismatches"] == 0 for s in run["steps"]))
        # two steps at once: the same output and statistics, step by step
        at_once = ex.run(x, jobs=2)
        self.assertTrue(at_once["verified"])
        np.testing.assert_array_equal(at_once["output"], run["output"])
        self.assertEqual([s["stats"] for s in at_once["steps"]], [s["stats"] for s in run["steps"]])
        # the programs' rules: steps at once without verification run (their inputs from the reference,
        # nothing compared), the count is from 0 (one per core) to 256, and the input has the graph's shape
        unverified = ex.run(x, verify=False, jobs=2)
        np.testing.assert_array_equal(unverified["output"], run["output"])
        for jobs in (-1, 257, 2 ** 32 - 1):
            with self.assertRaisesRegex(vn.GraphError, "steps at once are from 1 to 256"):
                ex.run(x, jobs=jobs)
        with self.assertRaisesRegex(vn.GraphError, r"the input is \(64, 64, 3, 1\), not the shape of .* \(1, 3, 64, 64\)"):
            ex.run(x.reshape(64, 64, 3, 1))

    def test_fast_forward_runs_the_chosen_steps_on_the_tsim(self):
        import vta.network as vn
        if "tsim" not in vta.backends():
            self.skipTest("built without the tsim")
        g = vn.resnet18(image=64, classes=10, width=16, seed=4)
        x = vn.generated_input(g, seed=4)
        g.calibrate_shifts(x)
        run = vn.Executor(g, tsim_steps="layer2.0:layer2.1").run(x)
        self.assertTrue(run["verified"])
        clocked = {s["name"] for s in run["steps"] if s["stats"].get("cycle_count")}
        detailed = {"layer2.0", "layer2.1.conv1.q", "layer2.1"}
        if os.environ.get("VTA_TARGET", "") in ("", "fsim", "sim"):
            self.assertEqual(clocked, detailed)  # the others on the fsim
        else:
            self.assertTrue(detailed <= clocked)  # the others on a clocked VTA_TARGET as well
        with self.assertRaisesRegex(vn.GraphError, "is empty"):
            vn.Executor(g, tsim_steps="layer2.1:layer2.0")
        with self.assertRaisesRegex(ValueError, "does not run in this process"):
            vn.Executor(g, tsim_steps="layer2.0", detailed_target="rpc://127.0.0.1:1")

    def test_graphs_refuse_by_name(self):
        import vta.network as vn
        g = vn.Graph("tiny")
        g.input("x", [1, 16, 4, 4])
        with self.assertRaisesRegex(vn.GraphError, "nothing"):
            g.relu("r", "nothing")
        with self.assertRaises(TypeError):
            g.constant("w", np.zeros((16, 16, 1, 1), np.float32))
        with self.assertRaisesRegex(vn.GraphError, "no operator named q"):
            g.place("q", "vta")
        self.assertTrue(issubclass(vn.GraphError, ValueError))


    def test_an_onnx_model_imports_quantizes_and_runs_verified(self):
        import vta.network as vn
        m = vn.import_onnx(os.path.join(SOURCE, "models", "fashion_mnist", "cnn.onnx"))
        self.assertEqual(m.input_shape, (1, 1, 28, 28))
        self.assertEqual([o["onnx_op"] for o in m.ops][:2], ["Conv", "Relu"])
        rng = np.random.default_rng(3)
        images = [rng.random((1, 1, 28, 28), dtype=np.float32) for _ in range(4)]
        q = m.quantize(images)
        self.assertTrue(any(p["placement"] == "vta" for p in q.placements))
        ex = vn.Executor(q.graph)
        for image in images:
            run = ex.run(q.quantize_input(image))
            self.assertTrue(run["verified"])
            logits = q.dequantize_output(run["output"])
            self.assertEqual(logits.shape, (1, 10))
            expected = m.run_float(image)
            self.assertLess(np.linalg.norm(logits - expected) / np.linalg.norm(expected), 0.15)
        with self.assertRaisesRegex(vn.ModelImportError, "not an ONNX model"):
            vn.import_onnx(os.path.join(SOURCE, "tests", "network", "onnx_malformed", "text.onnx"))
        with self.assertRaisesRegex(ValueError, "784"):
            m.run_float(np.zeros(3, np.float32))
        self.assertTrue(issubclass(vn.ModelImportError, vn.GraphError))
        # below 8 bits: 4-bit weights on VTA, a scale per channel when asked (scale_channels), verified
        q4 = m.quantize(images, weight_bits=4, per_channel_weights=True)
        ex4 = vn.Executor(q4.graph)
        self.assertTrue(ex4.run(q4.quantize_input(images[0]))["verified"])
        with self.assertRaisesRegex(vn.ModelImportError, "quantized to 4 or 8 bits, not 6"):
            m.quantize(images, weight_bits=6)
        # the convolution whose 4-bit rounding changed its output most keeps 8-bit weights
        rounded = [w for w in m.quantize(images, weight_bits=4).weights if w["bits"] == 4]
        worst = max(rounded, key=lambda w: w["output_error"])
        kept = m.quantize(images, weight_bits=4, eight_bit_layers=1)
        rounded_nodes = {w["node"] for w in rounded}
        self.assertEqual([w["node"] for w in kept.weights if w["bits"] == 8 and w["node"] in rounded_nodes],
                         [worst["node"]])
        self.assertTrue(vn.Executor(kept.graph).run(kept.quantize_input(images[0]))["verified"])
        with self.assertRaisesRegex(vn.ModelImportError, "eight_bit_nodes names nothing, which is not a Conv node"):
            m.quantize(images, weight_bits=4, eight_bit_nodes=["nothing"])

    def test_calibration_is_any_iterable_drawn_one_input_at_a_time(self):
        import vta.network as vn
        m = vn.import_onnx(os.path.join(SOURCE, "models", "fashion_mnist", "cnn.onnx"))
        rng = np.random.default_rng(5)
        images = [rng.random((1, 1, 28, 28), dtype=np.float32) for _ in range(3)]
        drawn = []

        def generator():
            for image in images:
                drawn.append(len(drawn))
                yield image

        from_list, from_generator = m.quantize(images), m.quantize(generator())
        self.assertEqual(drawn, [0, 1, 2])
        self.assertEqual([l["frac_bits"] for l in from_generator.layers], [l["frac_bits"] for l in from_list.layers])
        self.assertEqual(from_generator.input_frac_bits, from_list.input_frac_bits)
        with self.assertRaisesRegex(ValueError, "a calibration input has 3 values, the model's input 784"):
            m.quantize(iter([images[0], np.zeros(3, np.float32)]))
        with self.assertRaisesRegex(vn.ModelImportError, "at least one calibration input"):
            m.quantize(x for x in [])

        def broken():
            yield images[0]
            raise KeyError("the dataset ran dry")

        with self.assertRaisesRegex(KeyError, "ran dry"):
            m.quantize(broken())
        with self.assertRaises(TypeError):
            m.quantize(7)


class Resources(unittest.TestCase):
    def test_no_growth_over_many_calls(self):
        """10,000 expressions, tensors and device arrays made and dropped: the resident set stays flat."""
        data = vta.placeholder((1, 4, 1, 16), "data", "int8")

        def churn(n):
            for k in range(n):
                e = (data[0, k % 4, 0, 0].astype("int32") + k) >> 1
                str(e)
                vta.array(np.zeros((16,), np.int8)).numpy()

        churn(2000)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        churn(10000)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.assertLess(after - before, 8 * 1024, "KiB of resident memory grown over 10,000 rounds")


if __name__ == "__main__":
    unittest.main()
