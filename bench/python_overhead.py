#!/usr/bin/env python3
"""The cost of calling a module from Python: each tutorial's module (built by the tutorial's own code
through the compatibility packages) called from Python and from a C++ loop in the same process, on the
same device arrays, alternated over rounds; prints the ratio of the medians (docs/PERFORMANCE.md).

usage: PYTHONPATH=<build>/python-compat:<build>/python python3 bench/python_overhead.py [ROUNDS]
"""

import contextlib
import io
import os
import runpy
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TUTORIALS = os.path.join(HERE, "..", "tests", "python", "tutorials")


def tutorial(name, args):
    """Runs a tutorial (quietly) and returns its module and the device arrays it called it with."""
    with contextlib.redirect_stdout(io.StringIO()):
        g = runpy.run_path(os.path.join(TUTORIALS, name), run_name="__bench__")
    return g["f"], [g[a] for a in args]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    target = os.environ.get("VTA_TARGET", "fsim")
    for name, args, calls in (("matrix_multiply_opt.py", ("data_nd", "weight_nd", "res_nd"), 20),
                              ("convolution_opt.py", ("data_nd", "kernel_nd", "res_nd"), 4)):
        f, arrays = tutorial(name, args)
        py, cpp = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(calls):
                f(*arrays)
            py.append((time.perf_counter() - start) / calls)
            cpp.append(f._time_calls(calls, *arrays) / calls)
        p, c = statistics.median(py), statistics.median(cpp)
        print(f"{name:24} on {target}: Python {p * 1e3:8.3f} ms/call, C++ {c * 1e3:8.3f} ms/call, "
              f"ratio {p / c:.3f} ({rounds} rounds of {calls} calls, alternated)")


if __name__ == "__main__":
    main()
