"""The test harness of TVM's VTA tests (`vta.testing.run`) and the statistics they print
(`from vta.testing import simulator`)."""

import os

import vta as _vta

from . import simulator
from .. import session as _session


def run(run_func):
    """Calls `run_func(env, remote)` with the current environment (vta.get_env()) and a session on the
    accelerator VTA_TARGET names: a local session (modules run in this process on the fsim, tsim,
    systemc, the board, or the device server of rpc://HOST:PORT), or, when VTA_LOCAL_SIM_RPC names a
    port, a session on the vta-device-server listening there on this machine (TVM's variable for the
    same). While it runs, `simulator.stats()` reads that session's device. Returns what `run_func` returns."""
    env = _vta.get_env()
    port = os.environ.get("VTA_LOCAL_SIM_RPC", "").strip()
    if port and port != "0":
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"VTA_LOCAL_SIM_RPC={port!r}: expected a TCP port number (1-65535)")
        remote = _session.connect("127.0.0.1", int(port))
    else:
        remote = _session.LocalSession()
    with simulator.reading(remote):
        return run_func(env, remote)
