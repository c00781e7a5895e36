"""A thin stand-in for the parts of TVM the VTA tutorials use, over the `vta` package (docs/PYTHON.md).

Put this directory first on PYTHONPATH and the tutorials' code, and TVM's own VTA tests and GEMM
benchmark, run as they are written: `tvm.lower`, `tvm.target.Target`, `tvm.nd.array`/`empty`,
`tvm.tir.const`, `tvm.runtime.enabled`, `te`, `rpc`, `topi`, `contrib.utils`, `testing`. Anything else
is refused by name: this is not TVM.
"""

import sys
import types

import numpy as _np
import vta as _vta

from . import contrib, rpc, te, testing, topi  # noqa: F401

__version__ = "vta-compat"


def lower(schedule, args, simple_mode=True, name=None, binds=None):
    """The loop nests (no VTA pass), as the tutorials print them before `vta.lower`."""
    if binds:
        raise NotImplementedError("tvm.lower: binds is not supported by the VTA compatibility layer")
    del name
    return _vta.lower(schedule, args, simple_mode, passes="loops")


class Target:
    """A compilation target: "ext_dev" (the accelerator) with a host; recorded, not interpreted."""

    def __init__(self, target, host=None):
        if str(target) not in ("ext_dev", "llvm"):
            raise NotImplementedError(f"tvm.target.Target: only ext_dev and llvm, not {target!r}")
        self.kind, self.host = str(target), host

    def __str__(self):
        return self.kind


target = types.SimpleNamespace(Target=Target)


def _enabled(what):
    """What this runtime has: rpc (a device server, or a local session)."""
    return what in ("rpc", "ext_dev", "llvm")


runtime = types.SimpleNamespace(enabled=_enabled)


def _remote_of(device, ctx):
    """The device server's session of a session's device (`ctx`: TVM's older name of `device`), or None
    for this process's device."""
    return getattr(device if device is not None else ctx, "remote", None)


def _array(values, device=None, dtype=None, ctx=None):
    """A device array holding a copy of `values` (int8 or int32; dtype="int4": integers in [-8, 7],
    packed two a byte): in the server's memory for a remote session's device, else on this process's."""
    packed = str(dtype) == "int4"
    if packed:  # (NumPy has no int4: the values as int8, checked first)
        a = _np.asarray(values)
        if a.dtype.kind not in "iu" or (a.size and (a.min() < -8 or a.max() > 7)):
            raise ValueError("tvm.nd.array: int4 elements are integers in [-8, 7]")
        a = a.astype(_np.int8)
    else:
        a = _np.asarray(values, dtype=dtype) if dtype else _np.asarray(values)
    a = _np.ascontiguousarray(a)
    kind = "int4" if packed else ""
    remote = _remote_of(device, ctx)
    return remote.array(a, "", kind) if remote is not None else _vta.array(a, "", kind)


def _empty(shape, dtype="float32", device=None, ctx=None, mem_scope=None):
    """A device array of `shape` and `dtype` (int8, int32 or int4), zeroed, where `device` is."""
    if mem_scope is not None:
        raise NotImplementedError("tvm.nd.empty: mem_scope is not supported by the VTA compatibility layer")
    if str(dtype) not in ("int8", "int32", "int4"):
        raise TypeError(f"tvm.nd.empty: a device array holds int8, int32 or int4 elements, not {dtype}")
    remote = _remote_of(device, ctx)
    shape = tuple(int(d) for d in shape) if isinstance(shape, (tuple, list)) else (int(shape),)
    if remote is not None:
        return remote.empty(shape, str(dtype))
    if str(dtype) == "int4":
        return _vta.array(_np.zeros(shape, dtype=_np.int8), "", "int4")
    return _vta.array(_np.zeros(shape, dtype=dtype))


nd = types.SimpleNamespace(array=_array, empty=_empty)
tir = types.SimpleNamespace(const=_vta.const)
sys.modules[__name__ + ".target"] = target
sys.modules[__name__ + ".runtime"] = runtime
sys.modules[__name__ + ".nd"] = nd
sys.modules[__name__ + ".tir"] = tir
