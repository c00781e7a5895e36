"""A seeded mutation test of the Python surface (issue 46): thousands of calls of the package's entry
points with arguments drawn from surface_corpus.json (edge integers, NaN, wrong types, arrays of the
wrong dtype or shape). Every call returns or raises TypeError or ValueError (the package's own error
classes derive from them; RunError and RemoteError from RuntimeError, for a run or a connection that fails); never another class
(pybind11's "Unable to cast" RuntimeError, MemoryError, SystemError), never a crash or a hang (ctest's
timeout). VTA_FUZZ_SEED and VTA_FUZZ_CALLS choose the seed and the number of calls."""

import json
import math
import os
import random
import unittest

import numpy as np

import vta
import vta.network as vn

HERE = os.path.dirname(os.path.abspath(__file__))


def corpus():
    def value(v):
        (kind, x), = v.items()
        if kind == "int":
            return x
        if kind == "pow2":
            return 2 ** x
        if kind == "float":
            return float(x)
        if kind == "array":
            return np.ones(x[1], dtype=x[0])
        if kind == "none":
            return None
        return x
    with open(os.path.join(HERE, "surface_corpus.json")) as f:
        return [value(v) for v in json.load(f)["values"]]


def small_copy(env):
    """A one-element copy through the accumulator: a module to time."""
    a = vta.placeholder((1, 1, env.BATCH, env.BLOCK_OUT), "a", "int32")
    a_buf = vta.compute(a.shape, lambda *i: a(*i), "a_buf")
    r = vta.compute(a.shape, lambda *i: a_buf(*i).astype("int8"), "r")
    s = vta.create_schedule(r)
    s[a_buf].set_scope(env.acc_scope)
    s[a_buf].pragma(s[a_buf].op.axis[0], env.dma_copy)
    s[r].pragma(s[r].op.axis[0], env.dma_copy)
    return s, [a, r]


def allowed(e):
    return isinstance(e, (TypeError, ValueError, vta.RunError, vta.RemoteError))


class SurfaceFuzz(unittest.TestCase):
    def test_seeded_mutations_raise_only_the_documented_classes(self):
        seed = int(os.environ.get("VTA_FUZZ_SEED", "46"))
        calls = int(os.environ.get("VTA_FUZZ_CALLS", "3000"))
        rng = random.Random(seed)
        values = corpus()
        pick = lambda: rng.choice(values)  # noqa: E731

        small = vn.resnet18(image=32, classes=10, width=16)
        x = vn.generated_input(small)
        executor = vn.Executor(small)
        env = vta.get_env()
        data = vta.placeholder((1, 4, 1, 16), "data", "int8")

        acc = vta.placeholder((4, 8), "acc", "int32")
        y = vta.compute((4, 8), lambda i, j: acc(i, j) >> 1, "y")
        module = vta.build(*small_copy(env))

        def graph():
            g = vn.Graph("fuzz")
            g.input("x", [1, 16, 4, 4])
            return g

        entry_points = {
            "resnet18": lambda: vn.resnet18(image=pick(), width=pick(), classes=pick(), batch=pick()),
            "calibrate_shifts": lambda: small.calibrate_shifts(pick()),
            "run_reference": lambda: small.run_reference(pick()),
            "executor.run": lambda: executor.run(pick()),
            "generated_input": lambda: vn.generated_input(small, seed=pick()),
            "graph.input": lambda: vn.Graph("g").input(pick(), pick()),
            "graph.relu": lambda: graph().relu(pick(), pick()),
            "graph.shr": lambda: graph().shr("s", "x", pick()),
            "graph.clip": lambda: graph().clip("c", "x", pick(), pick()),
            "graph.max_pool": lambda: graph().max_pool("p", "x", pick(), pick(), pick()),
            "graph.constant": lambda: graph().constant(pick(), pick()),
            "graph.conv2d": lambda: graph().conv2d("c", "x", pick(), pick(), pick()),
            "graph.place": lambda: graph().place(pick(), pick()),
            "array": lambda: vta.array(pick(), pick()),
            "placeholder": lambda: vta.placeholder(pick(), pick(), pick()),
            "expr.arith": lambda: data[0, 0, 0, 0] * pick() + pick(),
            "expr.index": lambda: data[pick(), 0, 0, 0],
            "reduce_axis": lambda: vta.reduce_axis((pick(), pick()), name=pick()),
            "split": lambda: (lambda s: s[data].split(s[data].op.axis[1], pick()))(vta.create_schedule(data)),
            "split.factor": lambda: (lambda s: s[y].split(s[y].op.axis[1], factor=pick()))(vta.create_schedule(y)),
            "split.nparts": lambda: (lambda s: s[y].split(s[y].op.axis[0], nparts=pick()))(vta.create_schedule(y)),
            "tile": lambda: (lambda s: s[y].tile(s[y].op.axis[0], s[y].op.axis[1], pick(), pick()))(
                vta.create_schedule(y)),
            "expr.bits": lambda: (acc[0, 0] << pick()) & pick() | (pick() >> acc[0, 0]),
            "expr.compare": lambda: (acc[0, 0] <= pick(), pick() < acc[0, 0], acc[0, 0] == pick(), pick() % acc[0, 0]),
            "const": lambda: vta.const(pick(), pick()),
            "environment": lambda: vta.Environment(pick()),
            "time_evaluator": lambda: module.time_evaluator(pick(), None, number=pick(), repeat=pick()),
            "set_scope": lambda: vta.create_schedule(data)[data].set_scope(pick()),
            "connect": lambda: vta.connect("127.0.0.1", 1, timeout=pick()),
            "estimate.config": lambda: vta.get_env().__class__,  # (a call that always returns)
        }
        names = sorted(entry_points)
        unexpected = []
        for i in range(calls):
            name = rng.choice(names)
            try:
                entry_points[name]()
            except Exception as e:  # noqa: BLE001  (the class is what is checked)
                if not allowed(e):
                    unexpected.append("%d %s: %s: %s" % (i, name, type(e).__name__, str(e)[:200]))
        self.assertEqual(unexpected, [], "\n".join(unexpected[:20]))
        self.assertTrue(math.isfinite(env.BLOCK_IN))


if __name__ == "__main__":
    unittest.main()
