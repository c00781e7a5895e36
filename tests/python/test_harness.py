"""TVM's VTA test style through the compatibility packages: each instruction kind as a function of
(env, remote) run by `vta.testing.run`, built with `vta.build`, saved, uploaded and loaded through the
session, called on `tvm.nd` arrays of `remote.ext_dev(0)` and checked against NumPy; the environment
(mock names, cfg_dict, scoping), `time_evaluator`, the expression operators, and splits whose factor
does not divide the extent. Shapes and seeds are this file's own. Run with the compat directory first on
PYTHONPATH, on every backend (ctest Python.Harness, .tsim, .rpc, .rpc_session; docs/PYTHON.md).
"""

import contextlib
import io
import os
import unittest

import numpy as np

import tvm
import vta
import vta.testing
from tvm import te, topi
from tvm.contrib import utils
from vta.testing import simulator


def run_module(remote, env, schedule, args, arrays, file_name="module.o"):
    """Builds `schedule`, saves it, uploads and loads it through `remote` and calls it on `arrays`
    (NumPy), the last one being the output; returns the output as NumPy and the statistics of the call."""
    with vta.build_config():
        module = vta.build(schedule, args, tvm.target.Target("ext_dev", host=env.target_host))
    temp = utils.tempdir()
    module.save(temp.relpath(file_name))
    remote.upload(temp.relpath(file_name))
    f = remote.load_module(file_name)
    dev = remote.ext_dev(0)
    nds = [tvm.nd.array(a, dev) for a in arrays[:-1]]
    out = tvm.nd.empty(arrays[-1].shape, device=dev, dtype=str(arrays[-1].dtype))
    simulator.clear_stats()
    f(*nds, out)
    return out.numpy(), simulator.stats()


def acc_copy_stages(env, shape, name):
    """A placeholder in the accumulator's type and its copy into the accumulator (DMA)."""
    a = te.placeholder(shape, name=name, dtype=env.acc_dtype)
    a_buf = te.compute(shape, lambda *i: a(*i), name + "_buf")
    return a, a_buf


def alu_schedule(env, out, acc_stages, loads):
    s = te.create_schedule(out.op)
    for t in acc_stages:
        s[t].set_scope(env.acc_scope)
    for t in loads:
        s[t].pragma(s[t].op.axis[0], env.dma_copy)
    for t in acc_stages:
        if t not in loads:
            s[t].pragma(s[t].op.axis[0], env.alu)
    s[out].pragma(s[out].op.axis[0], env.dma_copy)
    return s


def declare_gemm(env, o, n, m, shift=7):
    """clip((x . w^T) >> shift, 0, 127) in VTA's blocked layout, with the copies into the SRAMs."""
    x = te.placeholder((o, n, env.BATCH, env.BLOCK_IN), name="x", dtype=env.inp_dtype)
    w = te.placeholder((m, n, env.BLOCK_OUT, env.BLOCK_IN), name="w", dtype=env.wgt_dtype)
    x_buf = te.compute(x.shape, lambda *i: x(*i), "x_buf")
    w_buf = te.compute(w.shape, lambda *i: w(*i), "w_buf")
    ko = te.reduce_axis((0, n), name="ko")
    ki = te.reduce_axis((0, env.BLOCK_IN), name="ki")
    shape = (o, m, env.BATCH, env.BLOCK_OUT)
    gem = te.compute(shape, lambda bo, co, bi, ci: te.sum(
        x_buf[bo, ko, bi, ki].astype(env.acc_dtype) * w_buf[co, ko, ci, ki].astype(env.acc_dtype),
        axis=[ko, ki]), name="gem")
    shf = te.compute(shape, lambda *i: gem(*i) >> shift, name="shf")
    low = te.compute(shape, lambda *i: te.max(0, shf(*i)), name="low")  # (the integer on the left)
    high = te.compute(shape, lambda *i: te.min(low(*i), (1 << (env.INP_WIDTH - 1)) - 1), name="high")
    y = te.compute(shape, lambda *i: high(*i).astype(env.inp_dtype), name="y")
    return dict(x=x, w=w, x_buf=x_buf, w_buf=w_buf, ko=ko, ki=ki, gem=gem, epilogue=[shf, low, high], y=y)


def gemm_reference(env, x, w, shift=7):
    acc = np.einsum("bkij,ckoj->bcio", x.astype(np.int32), w.astype(np.int32))
    return np.clip(acc >> shift, 0, (1 << (env.INP_WIDTH - 1)) - 1).astype(np.int8)


def schedule_gemm(env, g, b_tile=None, o_tile=None, k_tile=None, threads=None, mock=None):
    """The unit tests' GEMM schedule (the copies at the reduction loop, the GEMM tensorized, the epilogue
    on the ALU), with the output tiled when tiles are given, virtual threads over the batch blocks, and
    the stages of `mock` ("load", "store", "alu", "gemm") made no-ops with env.mock."""
    mock = set(mock or ())
    load = env.mock.dma_copy if "load" in mock else env.dma_copy
    store = env.mock.dma_copy if "store" in mock else env.dma_copy
    alu = env.mock.alu if "alu" in mock else env.alu
    gemm = env.mock.gemm if "gemm" in mock else env.gemm
    y, gem = g["y"], g["gem"]
    s = te.create_schedule(y.op)
    s[g["x_buf"]].set_scope(env.inp_scope)
    s[g["w_buf"]].set_scope(env.wgt_scope)
    for t in [gem] + g["epilogue"]:
        s[t].set_scope(env.acc_scope)
    store_at = s[y].op.axis[0]
    if b_tile is not None:
        bo, co, _, _ = s[y].op.axis
        b1, c1, b2, _ = s[y].tile(bo, co, b_tile, o_tile)
        for t in [gem] + g["epilogue"]:
            s[t].compute_at(s[y], c1)
        store_at = b2
    elif threads is not None:
        outer, inner = s[y].split(s[y].op.axis[0], nparts=threads)
        s[y].bind(outer, te.thread_axis("cthread"))
        for t in [gem] + g["epilogue"]:
            s[t].compute_at(s[y], outer)
        store_at = inner
    gbo, gco, gbi, gci = s[gem].op.axis
    ko = g["ko"]
    if k_tile is not None:
        ko, k2 = s[gem].split(g["ko"], factor=k_tile)
        s[gem].reorder(ko, k2, gbo, gco, gbi, gci, g["ki"])
    else:
        s[gem].reorder(ko, gbo, gco, gbi, gci, g["ki"])
    for t in (g["x_buf"], g["w_buf"]):
        s[t].compute_at(s[gem], ko)
        s[t].pragma(s[t].op.axis[0], load)
    s[gem].tensorize(gbi, gemm)
    for t in g["epilogue"]:
        s[t].pragma(s[t].op.axis[0], alu)
    s[y].pragma(store_at, store)
    return s


class Instructions(unittest.TestCase):
    """One test per instruction kind, each a function of (env, remote) as TVM's unit tests are."""

    def test_a_store_of_the_accumulator(self):
        def check(env, remote):
            shape = (5, 3, env.BATCH, env.BLOCK_OUT)
            x, x_buf = acc_copy_stages(env, shape, "x")
            y_buf = te.compute(shape, lambda *i: x_buf(*i) >> 0, "y_buf")  # (an ALU no-op keeps the stage)
            y = te.compute(shape, lambda *i: y_buf(*i).astype(env.inp_dtype), "y")
            s = alu_schedule(env, y, [x_buf, y_buf], [x_buf])
            xn = np.random.default_rng(1).integers(-100, 100, size=shape).astype(np.int32)
            got, stats = run_module(remote, env, s, [x, y], [xn, np.zeros(shape, np.int8)])
            np.testing.assert_equal(got, xn.astype(np.int8))
            self.assertEqual(stats["out_store_nbytes"], xn.size)  # one int8 per output lane
            self.assertEqual(stats["acc_load_nbytes"], xn.size * 4)
        vta.testing.run(check)

    def test_padded_loads_on_each_side(self):
        def check(env, remote):
            n, m = 4, 3
            for before, after in (([1, 0, 0, 0], [0, 0, 0, 0]), ([0, 2, 0, 0], [0, 0, 0, 0]),
                                  ([0, 0, 0, 0], [3, 0, 0, 0]), ([0, 0, 0, 0], [0, 1, 0, 0]),
                                  ([2, 1, 0, 0], [1, 2, 0, 0])):
                x = te.placeholder((n, m, env.BATCH, env.BLOCK_OUT), name="x", dtype=env.acc_dtype)
                x_pad = topi.nn.pad(x, before, after, name="x_pad")
                shape = x_pad.shape
                y_buf = te.compute(shape, lambda *i: x_pad(*i) >> 0, "y_buf")
                y = te.compute(shape, lambda *i: y_buf(*i).astype(env.inp_dtype), "y")
                s = alu_schedule(env, y, [x_pad, y_buf], [x_pad])
                xn = np.random.default_rng(2).integers(1, 50, size=x.shape).astype(np.int32)
                want = np.zeros(shape, np.int8)
                want[before[0]:before[0] + n, before[1]:before[1] + m] = xn
                got, _ = run_module(remote, env, s, [x, y], [xn, np.zeros(shape, np.int8)], "padded.o")
                np.testing.assert_equal(got, want, err_msg=f"pads {before} {after}")
        vta.testing.run(check)

    def test_gemm_with_and_without_virtual_threads(self):
        def check(env, remote):
            o, n, m = 4, 3, 2
            rng = np.random.default_rng(3)
            g = declare_gemm(env, o, n, m)
            xn = rng.integers(-128, 128, size=g["x"].shape).astype(np.int8)
            wn = rng.integers(-128, 128, size=g["w"].shape).astype(np.int8)
            want = gemm_reference(env, xn, wn)
            out = np.zeros(want.shape, np.int8)
            one, one_stats = run_module(remote, env, schedule_gemm(env, g), [g["x"], g["w"], g["y"]], [xn, wn, out])
            np.testing.assert_equal(one, want)
            two, two_stats = run_module(remote, env, schedule_gemm(env, g, threads=2), [g["x"], g["w"], g["y"]],
                                        [xn, wn, out], "smt.o")
            np.testing.assert_equal(two, want)
            self.assertEqual(one_stats["gemm_counter"], o * n * m)
            self.assertEqual(two_stats["gemm_counter"], o * n * m)
        vta.testing.run(check)

    def test_each_alu_opcode_with_and_without_an_immediate(self):
        def check(env, remote):
            shape = (3, 4, env.BATCH, env.BLOCK_OUT)
            rng = np.random.default_rng(4)
            an = rng.integers(-20, 20, size=shape).astype(np.int32)
            bn = rng.integers(-20, 20, size=shape).astype(np.int32)
            cases = [  # (name, the DSL's operation, NumPy's, an immediate or None for a second tensor)
                ("SHL", lambda a, b: a << b, np.left_shift, 2), ("SHR", lambda a, b: a >> b, np.right_shift, 3),
                ("MAX", te.max, np.maximum, -3), ("MAX", te.max, np.maximum, None),
                ("MIN", te.min, np.minimum, 5), ("MIN", te.min, np.minimum, None),
                ("ADD", lambda a, b: a + b, np.add, 7), ("ADD", lambda a, b: a + b, np.add, None),
                ("SUB", lambda a, b: a - b, np.subtract, 6), ("MUL", lambda a, b: a * b, np.multiply, 3)]
            for name, op, np_op, imm in cases:
                a, a_buf = acc_copy_stages(env, shape, "a")
                loads, args, inputs = [a_buf], [a], [an]
                if imm is None:
                    b, b_buf = acc_copy_stages(env, shape, "b")
                    res_buf = te.compute(shape, lambda *i: op(a_buf(*i), b_buf(*i)), "res_buf")
                    loads, args, inputs = [a_buf, b_buf], [a, b], [an, bn]
                    want = np_op(an, bn)
                else:
                    res_buf = te.compute(shape, lambda *i: op(a_buf(*i), imm), "res_buf")
                    want = np_op(an, imm)
                res = te.compute(shape, lambda *i: res_buf(*i).astype(env.inp_dtype), "res")
                s = alu_schedule(env, res, loads + [res_buf], loads)
                got, stats = run_module(remote, env, s, args + [res], inputs + [np.zeros(shape, np.int8)], "alu.o")
                np.testing.assert_equal(got, want.astype(np.int8), err_msg=f"{name} {imm}")
                self.assertEqual(stats["alu_counter"], an.size // (env.BATCH * env.BLOCK_OUT), name)
        vta.testing.run(check)

    def test_relu_and_shift_and_scale(self):
        def check(env, remote):
            shape = (2, 5, env.BATCH, env.BLOCK_OUT)
            an = np.random.default_rng(5).integers(-300, 300, size=shape).astype(np.int32)
            a, a_buf = acc_copy_stages(env, shape, "a")
            up = te.compute(shape, lambda *i: te.max(a_buf(*i), 0), "up")
            down = te.compute(shape, lambda *i: te.min(up(*i), 127), "down")
            res = te.compute(shape, lambda *i: down(*i).astype(env.inp_dtype), "res")
            got, _ = run_module(remote, env, alu_schedule(env, res, [a_buf, up, down], [a_buf]), [a, res],
                                [an, np.zeros(shape, np.int8)], "relu.o")
            np.testing.assert_equal(got, np.clip(an, 0, 127).astype(np.int8))
            a, a_buf = acc_copy_stages(env, shape, "a")
            shifted = te.compute(shape, lambda *i: a_buf(*i) + 5, "shifted")
            scaled = te.compute(shape, lambda *i: shifted(*i) >> 2, "scaled")
            res = te.compute(shape, lambda *i: scaled(*i).astype(env.inp_dtype), "res")
            got, _ = run_module(remote, env, alu_schedule(env, res, [a_buf, shifted, scaled], [a_buf]), [a, res],
                                [an, np.zeros(shape, np.int8)], "scale.o")
            np.testing.assert_equal(got, ((an + 5) >> 2).astype(np.int8))
        vta.testing.run(check)

    def test_the_runtime_arrays_round_trip(self):
        def check(env, remote):
            dev = remote.ext_dev(0)
            for dtype in ("int8", "int32"):
                xn = np.random.default_rng(6).integers(-100, 100, size=(7, 3, env.BATCH, env.BLOCK_OUT)).astype(dtype)
                x = tvm.nd.array(xn, dev)
                np.testing.assert_equal(x.numpy(), xn)
                np.testing.assert_equal(x.asnumpy(), xn)
                np.testing.assert_equal(tvm.nd.empty(xn.shape, dtype, dev).numpy(), np.zeros_like(xn))
            with self.assertRaises(TypeError):
                tvm.nd.empty((2, 2), device=dev)  # float32, TVM's default, is no device array's type
        vta.testing.run(check)


class InexactSplits(unittest.TestCase):
    """Splits TVM accepts whose factor does not divide the extent: primes, 1, the extent itself and
    more, on the GEMM's output tiles and its reduction, against NumPy, with the GEMM count of the
    untiled product."""

    def test_tiles_of_any_size(self):
        def check(env, remote):
            for (o, n, m), (bt, ot, kt) in (((5, 7, 3), (2, 2, 3)), ((3, 5, 7), (3, 5, 2)), ((1, 1, 1), (2, 3, 4)),
                                            ((7, 2, 5), (7, 5, 2)), ((4, 3, 6), (1, 4, 5))):
                g = declare_gemm(env, o, n, m)
                rng = np.random.default_rng(o * 100 + n * 10 + m)
                xn = rng.integers(-128, 128, size=g["x"].shape).astype(np.int8)
                wn = rng.integers(-128, 128, size=g["w"].shape).astype(np.int8)
                s = schedule_gemm(env, g, b_tile=bt, o_tile=ot, k_tile=kt)
                got, stats = run_module(remote, env, s, [g["x"], g["w"], g["y"]],
                                        [xn, wn, np.zeros(g["y"].shape, np.int8)], "tiles.o")
                np.testing.assert_equal(got, gemm_reference(env, xn, wn), err_msg=f"{(o, n, m)} by {(bt, ot, kt)}")
                self.assertEqual(stats["gemm_counter"], o * n * m)
        vta.testing.run(check)

    def test_fuse_is_refused_by_name(self):
        env = vta.get_env()
        g = declare_gemm(env, 2, 2, 2)
        s = te.create_schedule(g["y"].op)
        with self.assertRaisesRegex(vta.ScheduleError, "fuse on stage y, axes i0, i1: refused"):
            s[g["y"]].fuse(s[g["y"]].op.axis[0], s[g["y"]].op.axis[1])

    def test_virtual_threads_over_an_inexact_split_are_refused_by_name(self):
        env = vta.get_env()
        g = declare_gemm(env, 5, 2, 2)
        s = schedule_gemm(env, g, threads=2)  # 5 batch blocks in 2 parts: 3 and 2
        with self.assertRaisesRegex(vta.ScheduleError, "does not divide the extent 5, and loop .* is bound to a "
                                                       "virtual thread"):
            vta.build(s, [g["x"], g["w"], g["y"]])


class Mocks(unittest.TestCase):
    """env.mock: the stages scheduled with its pragmas or intrinsic do nothing, the others run alone."""

    def test_each_unit_alone(self):
        def check(env, remote):
            o, n, m = 4, 4, 4
            g = declare_gemm(env, o, n, m)
            zeros = [np.zeros(g["x"].shape, np.int8), np.zeros(g["w"].shape, np.int8), np.zeros(g["y"].shape, np.int8)]
            args = [g["x"], g["w"], g["y"]]
            _, full = run_module(remote, env, schedule_gemm(env, g, 2, 2, 2), args, zeros, "all.o")
            alone = {unit: run_module(remote, env, schedule_gemm(env, g, 2, 2, 2, mock=others), args, zeros)[1]
                     for unit, others in (("gemm", {"load", "store", "alu"}), ("alu", {"load", "store", "gemm"}),
                                          ("load", {"store", "alu", "gemm"}), ("store", {"load", "alu", "gemm"}))}
            units = {"gemm": ("gemm_counter",), "alu": ("alu_counter",), "load": ("inp_load_nbytes", "wgt_load_nbytes"),
                     "store": ("out_store_nbytes",)}
            for unit, stats in alone.items():
                for other, keys in units.items():
                    for k in keys:
                        self.assertEqual(stats[k], full[k] if other == unit else 0, f"{unit} alone: {k}")
            # (a load and a store with nothing between them is what VTA's queues cannot order)
            with self.assertRaisesRegex(vta.ScheduleError, "load stage directly to the store stage"):
                vta.build(schedule_gemm(env, g, 2, 2, 2, mock={"alu", "gemm"}), args)
        vta.testing.run(check)


class Environment(unittest.TestCase):
    def test_mock_names_cfg_dict_and_scoping(self):
        env = vta.get_env()
        self.assertEqual((env.mock.dma_copy, env.mock.alu, env.mock.gemm), ("skip_dma_copy", "skip_alu", "skip_gemm"))
        self.assertIs(env.mock.mock, env.mock)
        self.assertEqual(env.mock.BLOCK_IN, env.BLOCK_IN)
        cfg = env.cfg_dict
        self.assertEqual(cfg["LOG_BLOCK"], (env.BLOCK_IN - 1).bit_length())
        cfg["TARGET"], cfg["LOG_BLOCK"] = "somewhere", 5
        with vta.Environment(cfg) as scoped:
            self.assertIs(vta.get_env(), scoped)
            self.assertEqual((scoped.TARGET, scoped.BLOCK_IN), ("somewhere", 32))
            with vta.Environment(env.cfg_dict):
                self.assertEqual(vta.get_env().BLOCK_IN, env.BLOCK_IN)
            self.assertIs(vta.get_env(), scoped)
        self.assertIs(vta.get_env(), env)
        with self.assertRaises(vta.ConfigError):
            vta.Environment(dict(env.cfg_dict, LOG_BLOCK="four"))

    def test_fpga_steps_say_there_is_nothing_to_do(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            vta.reconfig_runtime(None)
            vta.program_fpga(None, bitstream=None)
        self.assertEqual(err.getvalue().count("nothing to do"), 2, err.getvalue())

    def test_the_harness_gives_the_target_its_session(self):
        seen = []
        vta.testing.run(lambda env, remote: seen.append((env, remote)))
        env, remote = seen[0]
        self.assertIs(env, vta.get_env())
        self.assertTrue(hasattr(remote, "upload") and hasattr(remote, "load_module"))
        self.assertEqual(type(remote).__name__,
                         "RemoteSession" if os.environ.get("VTA_LOCAL_SIM_RPC") else "LocalSession")
        self.assertTrue(simulator.enabled())


class TimeEvaluator(unittest.TestCase):
    def test_repeats_and_means(self):
        def check(env, remote):
            shape = (2, 2, env.BATCH, env.BLOCK_OUT)
            a, a_buf = acc_copy_stages(env, shape, "a")
            res = te.compute(shape, lambda *i: a_buf(*i).astype(env.inp_dtype), "res")
            s = alu_schedule(env, res, [a_buf], [a_buf])
            temp = utils.tempdir()
            vta.build(s, [a, res], "ext_dev", env.target_host, name="copy").save(temp.relpath("copy.o"))
            remote.upload(temp.relpath("copy.o"))
            f = remote.load_module("copy.o")
            dev = remote.ext_dev(0)
            x, y = tvm.nd.array(np.ones(shape, np.int32), dev), tvm.nd.empty(shape, device=dev, dtype="int8")
            simulator.clear_stats()
            cost = f.time_evaluator("copy", dev, number=3, repeat=2)(x, y)
            self.assertEqual(len(cost.results), 2)
            self.assertGreater(cost.mean, 0)
            self.assertAlmostEqual(cost.mean, sum(cost.results) / 2)
            self.assertEqual(simulator.stats()["out_store_nbytes"], 6 * y.numpy().size)  # 3 calls x 2 repeats
            np.testing.assert_equal(y.numpy(), np.ones(shape, np.int8))
            with self.assertRaises(ValueError):
                f.time_evaluator("copy", dev, number=0)
            with self.assertRaises(TypeError):
                f.time_evaluator("copy", dev, repeat=1.5)
        vta.testing.run(check)


class Expressions(unittest.TestCase):
    def test_every_operator_with_an_integer_on_either_side(self):
        x = te.placeholder((4,), name="x", dtype="int32")
        v = x[1]
        self.assertEqual(str(v << 2), "@tir.shift_left(x[1], 2, dtype=int32)")
        self.assertEqual(str(3 << v), "@tir.shift_left(3, x[1], dtype=int32)")
        self.assertEqual(str(16 >> v), "@tir.shift_right(16, x[1], dtype=int32)")
        self.assertEqual(str(7 // v), "floordiv(7, x[1])")
        self.assertEqual(str(7 % v), "floormod(7, x[1])")
        self.assertEqual(str(v & 6), "@tir.bitwise_and(x[1], 6, dtype=int32)")
        self.assertEqual(str(6 | v), "@tir.bitwise_or(6, x[1], dtype=int32)")
        self.assertEqual(str(-v), "(0 - x[1])")
        for expr, text in ((v < 2, "(x[1] < 2)"), (v <= 2, "(x[1] <= 2)"), (2 < v, "(x[1] > 2)"),
                           (v >= 2, "(x[1] >= 2)"), (v == 2, "(x[1] == 2)"), (v != 2, "(x[1] != 2)")):
            self.assertEqual((str(expr), expr.dtype), (text, "bool"))
        self.assertEqual(str((v < 2) & (v > 0)), "((x[1] < 2) && (x[1] > 0))")
        self.assertEqual(str(tvm.tir.const(5, "int8")), "5")
        self.assertEqual(tvm.tir.const(5, "int8").dtype, "int8")
        with self.assertRaises(ValueError):
            tvm.tir.const(300, "int8")
        self.assertEqual(len({v, v + 1}), 2)  # (== builds an expression: expressions hash by identity)

    def test_a_left_shift_by_a_tensor_is_refused_by_name(self):
        env = vta.get_env()
        shape = (1, 1, env.BATCH, env.BLOCK_OUT)
        a, a_buf = acc_copy_stages(env, shape, "a")
        b, b_buf = acc_copy_stages(env, shape, "b")
        res_buf = te.compute(shape, lambda *i: a_buf(*i) << b_buf(*i), "res_buf")
        res = te.compute(shape, lambda *i: res_buf(*i).astype(env.inp_dtype), "res")
        s = alu_schedule(env, res, [a_buf, b_buf, res_buf], [a_buf, b_buf])
        with self.assertRaisesRegex(vta.ScheduleError, "a left shift takes an immediate"):
            vta.build(s, [a, b, res])


if __name__ == "__main__":
    unittest.main()
