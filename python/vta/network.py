"""Whole quantized networks (docs/NETWORK.md): graphs of operators on named tensors, each placed on VTA
or the host, ResNet-18 with generated or loaded weights, shift calibration, the plain C++ reference,
and the executor (its VTA steps compiled once, run on the runtime's device, verified step by step)::

    import vta.network as vn
    g = vn.resnet18(image=224)
    x = vn.generated_input(g, seed=1)
    g.calibrate_shifts(x)
    run = vn.Executor(g).run(x)           # {"output", "steps", "vta", "seconds", "verified"}

Fast-forward: the steps FIRST:LAST cycle by cycle on the tsim (their "stats" carry "cycle_count"), every
other on VTA_TARGET (the fsim), over the same device memory::

    run = vn.Executor(g, tsim_steps="layer3.0.conv1.q:layer3.1").run(x)

A model of your own from ONNX (docs/MODELS.md)::

    m = vn.import_onnx("models/fashion_mnist/cnn.onnx")
    q = m.quantize(calibration_images)     # any iterable of float arrays of the input's shape
    ex = vn.Executor(q.graph)
    run = ex.run(q.quantize_input(image))
    logits = q.dequantize_output(run["output"])                # beside m.run_float(image)
"""

from ._core.network import (Executor, Graph, GraphError, ModelImportError, NpyError, OnnxModel,  # noqa: F401
                            QuantizedModel, generated_input, import_onnx, resnet18)

__all__ = ["Executor", "Graph", "GraphError", "ModelImportError", "NpyError", "OnnxModel", "QuantizedModel",
           "generated_input", "import_onnx", "resnet18"]
