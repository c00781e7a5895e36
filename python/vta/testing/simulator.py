"""The tutorials' `simulator`: the statistics of the runtime's device, whichever backend runs
(VTA_TARGET: fsim, tsim, systemc, rpc://)."""

import vta

# the seven statistics, in the order the seeds print them
_FIELDS = ("inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes", "uop_load_nbytes", "out_store_nbytes",
           "gemm_counter", "alu_counter")


def clear_stats():
    vta.clear_stats()


def stats():
    """The seven statistics since the last clear_stats(), in the seeds' order (vta.stats() has the
    cycle count too)."""
    s = vta.stats()
    return {k: s[k] for k in _FIELDS}
