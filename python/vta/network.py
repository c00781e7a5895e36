"""Whole quantized networks (docs/NETWORK.md): graphs of operators on named tensors, each placed on VTA
or the host, ResNet-18 with generated or loaded weights, shift calibration, the plain C++ reference,
and the executor (its VTA steps compiled once, run on the runtime's device, verified step by step).

    import vta.network as vn
    g = vn.resnet18(image=224)
    x = vn.generated_input(g, seed=1)
    g.calibrate_shifts(x)
    run = vn.Executor(g).run(x)           # {"output", "steps", "vta", "seconds", "verified"}
"""

from ._core.network import Executor, Graph, GraphError, NpyError, generated_input, resnet18  # noqa: F401

__all__ = ["Executor", "Graph", "GraphError", "NpyError", "generated_input", "resnet18"]
