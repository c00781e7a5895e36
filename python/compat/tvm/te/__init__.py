"""tvm.te over the vta package: the tensor-expression DSL and schedules of the tutorials."""

import vta as _vta

placeholder = _vta.placeholder
compute = _vta.compute
reduce_axis = _vta.reduce_axis
sum = _vta.sum  # noqa: A001
max = _vta.max  # noqa: A001
min = _vta.min  # noqa: A001
create_schedule = _vta.create_schedule


def thread_axis(tag):
    """A thread to bind a loop to: the virtual threads ("cthread") are the only kind on VTA."""
    if tag != "cthread":
        raise NotImplementedError(f"te.thread_axis: VTA has virtual threads (cthread) only, not {tag!r}")
    return tag
