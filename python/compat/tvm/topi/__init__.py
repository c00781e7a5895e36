"""tvm.topi: nn.pad, and the NumPy references of topi.testing."""

import types

import vta as _vta

from . import testing  # noqa: F401


def _pad(data, pad_before, pad_after=None, pad_value=0.0, name="PadInput"):
    if pad_value != 0:
        raise NotImplementedError("topi.nn.pad: VTA pads with zeros only")
    return _vta.pad(data, pad_before, pad_after, name)


nn = types.SimpleNamespace(pad=_pad)
