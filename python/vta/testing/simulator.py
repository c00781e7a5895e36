"""The tutorials' `simulator`: the statistics of the runtime's device, whichever backend runs
(VTA_TARGET: fsim, tsim, systemc, rpc://), or of the session `vta.testing.run` is running a test on."""

import contextlib

import vta

# the seven statistics, in the order the seeds print them
_FIELDS = ("inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes", "uop_load_nbytes", "out_store_nbytes",
           "gemm_counter", "alu_counter")

_session = None  # the session of vta.testing.run, while it runs a test


@contextlib.contextmanager
def reading(session):
    """Within the block, the statistics are `session`'s device's (vta.testing.run)."""
    global _session
    previous, _session = _session, session
    try:
        yield
    finally:
        _session = previous


def enabled():
    """Whether a simulator (or a device) runs this process's modules: always, on every backend."""
    return True


def clear_stats():
    if _session is not None:
        _session.clear_stats()
    else:
        vta.clear_stats()


def stats():
    """The seven statistics since the last clear_stats(), in the seeds' order (vta.stats() has the
    cycle count too)."""
    s = _session.stats() if _session is not None else vta.stats()
    return {k: s[k] for k in _FIELDS}
