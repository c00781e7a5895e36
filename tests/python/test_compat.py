"""The TVM compatibility packages (python/compat/tvm): what the tutorials call maps onto the vta
package, and what they do not support is refused by name. Run with the compat directory first on
PYTHONPATH (ctest Python.Compat)."""

import os
import tempfile
import unittest

import numpy as np

import tvm
import tvm.testing
import vta
from tvm import rpc, te, topi
from tvm.contrib import utils
from tvm.topi.testing import conv2d_nchw_python
from vta.testing import simulator


def small_alu(env):
    a = te.placeholder((1, 1, env.BATCH, env.BLOCK_OUT), name="a", dtype="int32")
    a_buf = te.compute(a.shape, lambda *i: a(*i), "a_buf")
    m = te.compute(a.shape, lambda *i: te.max(a_buf(*i), 0), "m")
    r = te.compute(a.shape, lambda *i: m(*i).astype("int8"), "r")
    s = te.create_schedule(r.op)
    for t in (a_buf, m):
        s[t].set_scope(env.acc_scope)
    s[a_buf].pragma(s[a_buf].op.axis[0], env.dma_copy)
    s[m].pragma(s[m].op.axis[0], env.alu)
    s[r].pragma(s[r].op.axis[0], env.dma_copy)
    return s, [a, r]


class Compat(unittest.TestCase):
    def test_lowering_and_building_as_the_tutorials_call_them(self):
        env = vta.get_env()
        s, args = small_alu(env)
        self.assertEqual(tvm.lower(s, args, simple_mode=True), vta.lower(s, args, passes="loops"))
        f = vta.build(s, args, tvm.target.Target("ext_dev", host=env.target_host), name="alu")
        g = vta.build(s, args, "ext_dev", env.target_host, name="alu")
        self.assertEqual(f.program, g.program)
        self.assertEqual(vta.lower(s, args, simple_mode=True), f.program)
        self.assertTrue(tvm.runtime.enabled("rpc"))
        self.assertIn(env.TARGET, ("sim", "tsim"))

    def test_build_config_and_export_library(self):
        env = vta.get_env()
        s, args = small_alu(env)
        with vta.build_config(disabled_pass={"tir.CommonSubexprElimTIR"}):
            f = vta.build(s, args, "ext_dev", env.target_host, name="alu")
        with self.assertRaises(NotImplementedError):
            vta.build_config(opt_level=3)
        temp = utils.tempdir()
        f.export_library(temp.relpath("alu.so"))
        self.assertEqual(vta.load_module(temp.relpath("alu.so")).program, f.program)

    def test_a_local_session_and_the_simulator_statistics(self):
        env = vta.get_env()
        s, args = small_alu(env)
        temp = utils.tempdir()
        vta.build(s, args, "ext_dev", env.target_host, name="alu").save(temp.relpath("alu.o"))
        remote = rpc.LocalSession()
        remote.upload(temp.relpath("alu.o"))
        f = remote.load_module("alu.o")
        ctx = remote.ext_dev(0)
        x = np.arange(-8, 8, dtype=np.int32).reshape(args[0].shape)
        out = tvm.nd.array(np.zeros(args[1].shape).astype(args[1].dtype), ctx)
        simulator.clear_stats()
        f(tvm.nd.array(x, ctx), out)
        np.testing.assert_equal(out.numpy(), np.maximum(x, 0))
        self.assertEqual(list(simulator.stats()), ["inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes",
                                                   "uop_load_nbytes", "out_store_nbytes", "gemm_counter",
                                                   "alu_counter"])
        self.assertEqual(simulator.stats()["alu_counter"], 1)
        with self.assertRaisesRegex(ValueError, "nothing named other.o"):
            remote.load_module("other.o")

    def test_a_device_server_session(self):
        env = vta.get_env()
        s, args = small_alu(env)
        remote = rpc.RemoteSession(vta.local_session("fsim"))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "alu.o")
            vta.build(s, args).save(path)
            remote.upload(path)
            f = remote.load_module("alu.o")
        ctx = remote.ext_dev(0)
        x = np.arange(-8, 8, dtype=np.int32).reshape(args[0].shape)
        out = tvm.nd.array(np.zeros(args[1].shape, np.int8), ctx)
        f(tvm.nd.array(x, ctx), out)
        self.assertIsInstance(out, vta.RemoteArray)
        np.testing.assert_equal(out.numpy(), np.maximum(x, 0))
        # int4 arrays in the server's memory: int8 values packed two a byte, read back as int8
        values = np.array([-8, 7, 0, -1, 3, -4, 5, -6], np.int8)
        packed = tvm.nd.array(values, ctx, dtype="int4")
        self.assertEqual(packed.dtype, "int4")
        np.testing.assert_equal(packed.numpy(), values)
        self.assertEqual(tvm.nd.empty((2, 8), "int4", ctx).dtype, "int4")
        with self.assertRaisesRegex(ValueError, r"integers in \[-8, 7\]"):
            tvm.nd.array(np.array([0, 9]), ctx, dtype="int4")
        local = tvm.nd.array(values, dtype="int4")
        np.testing.assert_equal(local.numpy(), values)

    def test_references_and_padding(self):
        a = np.random.default_rng(0).integers(-4, 4, size=(1, 2, 5, 5)).astype(np.int32)
        w = np.random.default_rng(1).integers(-4, 4, size=(3, 2, 3, 3)).astype(np.int32)
        got = conv2d_nchw_python(a, w, (1, 1), (1, 1))
        padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
        want = np.zeros((1, 3, 5, 5), np.int32)
        for o in range(3):
            for y in range(5):
                for x in range(5):
                    want[0, o, y, x] = (padded[0, :, y:y + 3, x:x + 3] * w[o]).sum()
        tvm.testing.assert_allclose(got, want)
        data = te.placeholder((1, 1, 4, 4, 1, 16), name="data", dtype="int8")
        self.assertEqual(topi.nn.pad(data, [0, 0, 1, 1, 0, 0], name="data_buf").shape, (1, 1, 6, 6, 1, 16))

    def test_what_is_not_supported_is_refused_by_name(self):
        with self.assertRaisesRegex(NotImplementedError, "cthread"):
            te.thread_axis("threadIdx.x")
        with self.assertRaisesRegex(NotImplementedError, "cuda"):
            tvm.target.Target("cuda")
        with self.assertRaisesRegex(NotImplementedError, "zeros"):
            topi.nn.pad(te.placeholder((4,), name="x", dtype="int8"), [1], pad_value=1)
        with self.assertRaisesRegex(vta.RemoteError, "127.0.0.1:1"):
            rpc.connect("127.0.0.1", 1, session_timeout=5)


if __name__ == "__main__":
    unittest.main()
