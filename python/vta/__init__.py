"""VTA from Python: the C++ stack (vta._core) with the calling conventions of the tutorials.

Everything here is the C++ implementation: expressions, tensors and schedules are the compiler's
objects, modules run on the runtime's device (VTA_TARGET: fsim, tsim, systemc, rpc://HOST:PORT),
and errors are the C++ messages raised as the exceptions below. See docs/PYTHON.md. For example::

    import numpy as np, vta
    env = vta.get_env()
    data = vta.placeholder((1, 64, env.BATCH, env.BLOCK_IN), "data", env.inp_dtype)
    ...
    s = vta.create_schedule(res)
    print(vta.lower(s, [data, weight, res]))      # the program build() runs; passes="loops" / "dma" for less
    f = vta.build(s, [data, weight, res])
    f(vta.array(a), vta.array(w), out := vta.array(np.zeros(res.shape, np.int8)))
"""

import builtins
import inspect
import json
import os
import statistics
import sys
import time

try:
    import numpy  # noqa: F401  (the device arrays' type: Debian's, beside the interpreter below)
    from . import _core
except ImportError as _error:  # another interpreter than the one the package was built for
    from . import _build
    if os.path.realpath(sys.executable) != os.path.realpath(_build.PYTHON):
        raise ImportError(
            f"the vta package was built for {_build.PYTHON} (Python {_build.PYTHON_VERSION}, with Debian's NumPy); "
            f"this is {sys.executable}: run it with {_build.PYTHON} ({_error})") from _error
    raise
from ._core import (  # noqa: F401  (the package's vocabulary)
    BoardError,
    CallError,
    Capture,
    CaptureError,
    ConfigError,
    DeviceArray,
    Expr,
    InternalError,
    IterVar,
    Module,
    ModuleError,
    Remote,
    RemoteArray,
    RemoteError,
    RemoteModule,
    RunError,
    Schedule,
    ScheduleError,
    Stage,
    Tensor,
    Timeline,
    estimate_cycles,
    estimate_timelines,
    timelines_to_svg,
)

__all__ = [
    "Environment", "get_env", "placeholder", "compute", "reduce_axis", "sum", "max", "min", "pad",
    "create_schedule", "lower", "build", "load_module", "array", "stats", "energy", "clear_stats", "backends",
    "reconfig_runtime", "program_fpga", "build_config", "const", "BenchmarkResult",
    "connect", "local_session", "estimate_cycles", "estimate_timelines", "timelines_to_svg", "Capture",
    "CaptureError", "Timeline",
    "BoardError", "CallError", "ConfigError", "DeviceArray", "Expr", "InternalError", "IterVar", "Module", "ModuleError",
    "Remote", "RemoteArray", "RemoteError", "RemoteModule", "RunError", "Schedule", "ScheduleError", "Stage",
    "Tensor",
]


class Environment:
    """The target as a schedule sees it (the tutorials' `env`): shape factors, widths, dtypes, the
    SRAM scopes and the pragma names, from the built configuration, a configuration file, or a
    configuration as a dict (`env.cfg_dict`'s keys).

    `with vta.Environment(cfg):` makes it the environment `vta.get_env()` returns (and builds use)
    inside the block. A dict's "TARGET" is what `env.TARGET` reports, as TVM's; without one, TARGET
    follows VTA_TARGET (see TARGET)."""

    gemm = "gemm"  # the tensor intrinsic `tensorize` takes

    def __init__(self, config=""):
        self._target = None
        if isinstance(config, dict):
            cfg = dict(config)
            target = cfg.pop("TARGET", None)
            if target is not None:
                self._target = str(target)
            base = json.loads(_core.Env("").config_json)
            cfg["TARGET"] = self._target if self._target in _core.config_targets() else base["TARGET"]
            self._env = _core.Env.from_json(json.dumps(cfg))
        else:
            self._env = _core.Env(str(config))
        self._mock = None

    def __getattr__(self, name):
        if name.startswith("_"):  # (the attributes above, before __init__ has set them: copy, pickle)
            raise AttributeError(name)
        return getattr(self._env, name)

    @property
    def TARGET(self):  # noqa: N802  (the tutorials' name)
        """The kind of device runs go to, as the tutorials test it: "sim" for the fsim and for a device
        server (rpc://: its simulators behind it), "tsim" for the cycle-accurate ones (tsim, systemc),
        "fpga" for the board; or the "TARGET" of the configuration dict this environment was made from."""
        if self._target is not None:
            return self._target
        target = _core.default_target()
        if target == "fsim" or _core.is_scheme_address(target):
            return "sim"
        return "tsim" if target in ("tsim", "systemc") else target

    @property
    def target_host(self):
        """The host target the tutorials pass to build ("llvm"); the host's part of a module runs in
        this process whatever it says."""
        return "llvm"

    @property
    def cfg_dict(self):
        """The configuration as a dict of vta_config.json's keys (a copy: change it and make an
        Environment of it), with TARGET as this environment reports it."""
        cfg = json.loads(self._env.config_json)
        cfg["TARGET"] = self.TARGET
        return cfg

    @property
    def mock(self):
        """The same environment whose DMA copies, ALU operations and GEMMs do nothing (TVM's mock
        mode): `mock.dma_copy` is "skip_dma_copy", `mock.alu` "skip_alu", `mock.gemm` "skip_gemm". A
        stage scheduled with them is left out of the program, to time the others alone."""
        if self._mock is None:
            self._mock = _MockEnvironment(self)
        return self._mock

    def __enter__(self):
        _scopes.append(self)
        return self

    def __exit__(self, *exc):
        _scopes.remove(self)
        return False

    def __repr__(self):
        return f"<vta.Environment {self.BATCH}x{self.BLOCK_IN}x{self.BLOCK_OUT}, target {self.TARGET}>"


class _MockEnvironment(Environment):
    """Environment.mock: the environment's values with the mock pragma and intrinsic names."""

    dma_copy = "skip_dma_copy"
    alu = "skip_alu"
    gemm = "skip_gemm"

    def __init__(self, env):  # pylint: disable=super-init-not-called  (it shares env's configuration)
        self._env, self._target, self._mock = env._env, env._target, self

    def __repr__(self):
        return "<vta.Environment (mock) " + super().__repr__()[len("<vta.Environment "):]


_env = None
_scopes = []  # the environments of the `with vta.Environment(...)` blocks, innermost last


def get_env():
    """The environment of the innermost `with vta.Environment(...)` block; outside any, the one of the
    configuration this package was built for (one per process)."""
    global _env
    if _scopes:
        return _scopes[-1]
    if _env is None:
        _env = Environment()
    return _env


def _core_env(env):
    return (env or get_env())._env


def placeholder(shape, name="placeholder", dtype="int8"):
    """An input tensor of `shape` and `dtype` ("int8", "int32"), given as an array when the module is
    called. Raises ValueError naming an unknown dtype or a shape with a dimension below 1."""
    return _core.placeholder(list(shape), name, dtype)


def compute(shape, fcompute, name="compute"):
    """A tensor whose element at the output indices is `fcompute(*indices)`. The indices are named
    after the function's parameters (`lambda bo, co, bi, ci: ...`), or i0, i1, ... for `lambda *i`."""
    params = inspect.signature(fcompute).parameters.values()
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
        names = None  # (the compiler's own names)
    else:
        names = [p.name for p in params]
        if len(names) != len(shape):
            raise ScheduleError(f"compute {name}: the function takes {len(names)} indices for "
                                f"{len(shape)} dimensions")
    return _core.compute(list(shape), names, fcompute, name)


def reduce_axis(dom, name="rv"):
    """A reduction axis over `dom`: (0, extent) as the tutorials write it, or the extent."""
    if isinstance(dom, tuple):
        if len(dom) != 2 or dom[0] != 0:
            raise ScheduleError(f"reduce_axis {name}: the range must start at 0, not {dom}")
        dom = dom[1] - dom[0]
    return _core.reduce_axis(dom, name)  # (an integer: TypeError for anything else, from the binding)


def sum(expr, axis, init=None):  # noqa: A001  (te.sum)
    """The sum of `expr` over the reduction axis or axes `axis` (vta.reduce_axis), starting from `init`
    (0 when None): the body of a GEMM's compute. Raises ValueError when an axis is not a reduction axis."""
    return _core.sum(expr, list(axis) if isinstance(axis, (list, tuple)) else [axis], init)


def const(value, dtype="int32"):
    """The integer `value` as an expression of type `dtype` (tvm.tir.const); ValueError when it does not
    fit."""
    return _core.const(value, dtype)


def max(a, b):  # noqa: A001  (te.max)
    """The larger of two expressions (an integer takes the other's type): an ALU MAX once scheduled with
    the `alu` pragma. Python's own max cannot be used: an expression has no truth value."""
    return _core.max(a, b)


def min(a, b):  # noqa: A001  (te.min)
    """The smaller of two expressions (an integer takes the other's type): an ALU MIN once scheduled."""
    return _core.min(a, b)


def pad(tensor, pad_before, pad_after=None, name="pad"):
    """Zero padding (topi.nn.pad): `pad_before[d]` and `pad_after[d]` elements around dimension d."""
    return _core.pad(tensor, list(pad_before), list(pad_after or pad_before), name)


def create_schedule(output):
    """The schedule of `output` (a tensor, or its operation as the tutorials pass `res.op`)."""
    return _core.create_schedule(output)


def lower(schedule, args, simple_mode=True, passes="vta", env=None):
    """The lowered program as text. `passes`: "vta" (the default, the tutorials' `vta.lower`): every
    VTA pass, the program `build` runs; "dma": the SRAM scopes and DMA copies only; "loops": the loop
    nests only (the tutorials' `tvm.lower`)."""
    del simple_mode  # (the text is always the simple one)
    if passes not in ("vta", "dma", "loops"):
        raise ValueError(f"lower: passes is 'vta', 'dma' or 'loops', not {passes!r}")
    core_env = None if passes == "loops" else _core_env(env)
    return _core.lower(schedule, list(args), core_env, passes == "vta")


def build(schedule, args, target=None, target_host=None, name=None, env=None):
    """The module the schedule builds. `target`: a backend it must run on ("fsim", "tsim", ...), or
    None / "ext_dev" / a tvm Target for the accelerator VTA_TARGET names at run time. `target_host`
    and `name` are the tutorials' arguments; a module runs its program on the host here."""
    del target_host, name
    backend = target if isinstance(target, str) and target != "ext_dev" else ""
    return _core.build(schedule, list(args), _core_env(env), backend)


class build_config:  # noqa: N801  (the tutorials' name)
    """The tutorials' `with vta.build_config(disabled_pass={...}):` around lowering and building. The
    VTA passes always run; the passes a tutorial disables are TVM's own (common subexpression
    elimination and the like), which this compiler does not have: nothing to disable."""

    def __init__(self, disabled_pass=None, **options):
        if options:
            raise NotImplementedError(f"build_config: only disabled_pass is understood, not {sorted(options)}")
        self.disabled_pass = set(disabled_pass or ())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _nothing_to_do(what):
    if _core.default_target() == "fpga":
        return (f"vta: {what}: nothing to do: the board's bitstream is loaded with its device-tree overlay and its "
                "runtime is this build's (docs/FPGA.md)")
    return f"vta: {what}: nothing to do on a simulator ({_core.default_target() or 'fsim'})"


def reconfig_runtime(remote):
    """(TVM's FPGA step) The runtime is this build's on every backend: says so on stderr, does nothing."""
    del remote
    print(_nothing_to_do("reconfig_runtime"), file=sys.stderr)


def program_fpga(remote, bitstream=None):
    """(TVM's FPGA step) A simulator has no bitstream, and the board's is loaded with its device-tree
    overlay (docs/FPGA.md): says so on stderr, does nothing."""
    del remote, bitstream
    print(_nothing_to_do("program_fpga"), file=sys.stderr)


class BenchmarkResult:
    """What a time evaluator returns (TVM's): `results`, the seconds per call of each repeat, and their
    `mean`, `median`, `min`, `max` and `std`."""

    def __init__(self, results):
        self.results = tuple(results)
        self.mean = statistics.fmean(self.results)
        self.median = statistics.median(self.results)
        self.min, self.max = builtins.min(self.results), builtins.max(self.results)  # (vta's min/max are the DSL's)
        self.std = statistics.pstdev(self.results)

    def __repr__(self):
        return (f"BenchmarkResult(mean={self.mean:.6g} s, median={self.median:.6g} s, min={self.min:.6g} s, "
                f"max={self.max:.6g} s, std={self.std:.3g} s, {len(self.results)} repeats)")


def _count(name, value, least):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"time_evaluator: {name} must be an integer, not {type(value).__name__}")
    if value < least:
        raise ValueError(f"time_evaluator: {name} must be at least {least}, not {value}")
    return value


def _time_evaluator(self, func_name, dev=None, number=10, repeat=1, min_repeat_ms=0, cooldown_interval_ms=0,
                    repeats_to_cooldown=1, f_preproc=""):
    """A function that calls this module with its arguments `number` times per repeat, `repeat` times, and
    returns a BenchmarkResult of the wall-clock seconds per call (TVM's Module.time_evaluator). A module
    holds one function: `func_name` is the name its build gave it, not checked; `dev` is where its arrays
    are. With `min_repeat_ms`, a repeat's calls are doubled until it lasts that long."""
    del dev, func_name
    number, repeat = _count("number", number, 1), _count("repeat", repeat, 1)
    min_repeat_ms = _count("min_repeat_ms", min_repeat_ms, 0)
    cooldown_interval_ms = _count("cooldown_interval_ms", cooldown_interval_ms, 0)
    repeats_to_cooldown = _count("repeats_to_cooldown", repeats_to_cooldown, 1)
    if f_preproc:
        raise NotImplementedError("time_evaluator: f_preproc (a packed function run before each repeat) has "
                                  "no meaning here")
    module = self

    def evaluate(*args):
        results = []
        for r in range(repeat):
            calls = number
            while True:
                start = time.perf_counter()
                for _ in range(calls):
                    module(*args)
                elapsed = time.perf_counter() - start
                if elapsed * 1000 >= min_repeat_ms or calls >= 1 << 30:
                    break
                calls *= 2
            results.append(elapsed / calls)
            if cooldown_interval_ms and (r + 1) % repeats_to_cooldown == 0:
                time.sleep(cooldown_interval_ms / 1000)
        return BenchmarkResult(results)

    return evaluate


Module.time_evaluator = _time_evaluator
RemoteModule.time_evaluator = _time_evaluator
DeviceArray.asnumpy = DeviceArray.numpy  # (TVM's older name)
RemoteArray.asnumpy = RemoteArray.numpy


def load_module(path):
    """The module saved at `path` (Module.save, `.vtam`), ready to call. Raises ModuleError naming the
    file and what is wrong with it (not a module, another configuration, a damaged program)."""
    return Module.load(str(path))


def array(values, name="", dtype=None):
    """A device array holding a copy of the NumPy array `values` (int8 or int32); with dtype="int4",
    int8 values in [-8, 7] packed two a byte (a 4-bit configuration's inputs and weights)."""
    return DeviceArray(values, name, dtype or "")


def stats():
    """The seven statistics of the runtime's device and its cycle count (None on the fsim)."""
    return _core.runtime_stats()


def energy():
    """The energy of the runtime's device's runs since the statistics were cleared, by component in
    picojoules (mac_pj, alu_pj, sram_pj, dram_pj, idle_pj, total_pj), the technology table's name, and
    the average power in milliwatts at the configured clock (None on the fsim). docs/ENERGY.md.
    Raises RuntimeError when VTA_ENERGY_TABLE names a table that cannot be read."""
    return _core.runtime_energy()


def clear_stats():
    """Sets the runtime device's statistics (and so its energy) back to zero."""
    _core.clear_runtime_stats()


def backends():
    """The names VTA_TARGET accepts in this process."""
    return _core.backend_names()


def connect(host, port, token=None, token_file=None, timeout=30.0):
    """A session on a vta-device-server (docs/REMOTE.md): `upload(path)` a saved module,
    `load_module(name)`, `array(values)` / `empty(shape, dtype)` in the server's memory, call the module
    on them, `stats()`. `token` or `token_file`: the server's shared secret, when it asks for one.
    Every wait is bounded by `timeout` seconds; errors are RemoteError (CallError for a failed call)."""
    if token_file is not None:
        with open(token_file, encoding="utf-8") as f:
            token = f.read().rstrip("\n")
    return _core.connect(str(host), int(port), token or "", float(timeout))


def local_session(target=""):
    """A session on a device server started in this process (fsim, tsim; empty: VTA_TARGET): the same
    code path as connect(), without a network."""
    return _core.local_session(target)
