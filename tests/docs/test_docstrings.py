#!/usr/bin/python3
"""ctest Docs.EveryPublicPythonNameIsDocumented: every public name of the vta package (vta.__all__,
vta.network.__all__) and every public method and property of its classes has a docstring that says more
than pybind11's generated signature, so the Python reference (docs/api/python.rst, autodoc) documents it.

UNDOCUMENTED is the backlog found when the site was made (issue 52): names without a docstring then. A
name on it that gains one must leave it (the test says so), and a new public name without one fails.
"""
import inspect
import sys

import vta
import vta.network

UNDOCUMENTED = {
    "vta.Environment.target_host", "vta.placeholder", "vta.sum", "vta.max", "vta.min", "vta.load_module",
    "vta.clear_stats", "vta.estimate_cycles", "vta.estimate_timelines", "vta.timelines_to_svg",
    "vta.Capture", "vta.Capture.target", "vta.Capture.program", "vta.Capture.insn_count",
    "vta.Capture.replay", "vta.Timeline", "vta.Timeline.title", "vta.Timeline.estimated",
    "vta.Timeline.cycles", "vta.Timeline.busy", "vta.Timeline.to_trace_json", "vta.DeviceArray",
    "vta.DeviceArray.shape", "vta.DeviceArray.dtype", "vta.DeviceArray.numpy", "vta.DeviceArray.copyfrom",
    "vta.Expr", "vta.Expr.dtype", "vta.Expr.astype", "vta.IterVar", "vta.IterVar.var", "vta.IterVar.name",
    "vta.IterVar.extent", "vta.IterVar.reduce", "vta.Module", "vta.Module.save", "vta.Module.export_library",
    "vta.Module.to_json", "vta.Module.args", "vta.Module.target", "vta.Module.program", "vta.Remote",
    "vta.Remote.upload", "vta.Remote.upload_bytes", "vta.Remote.load_module", "vta.Remote.empty",
    "vta.Remote.array", "vta.Remote.stats", "vta.Remote.clear_stats", "vta.Remote.flush",
    "vta.Remote.target", "vta.Remote.where", "vta.Remote.round_trips", "vta.RemoteArray",
    "vta.RemoteArray.shape", "vta.RemoteArray.dtype", "vta.RemoteArray.name", "vta.RemoteArray.copyfrom",
    "vta.RemoteArray.numpy", "vta.RemoteModule", "vta.RemoteModule.name", "vta.RemoteModule.arg_names",
    "vta.Schedule", "vta.Stage", "vta.Stage.op", "vta.Stage.name", "vta.Stage.split",
    "vta.Stage.split_nparts", "vta.Stage.reorder", "vta.Stage.set_scope", "vta.Stage.compute_at",
    "vta.Stage.pragma", "vta.Stage.tensorize", "vta.Stage.bind", "vta.Tensor", "vta.Tensor.name",
    "vta.Tensor.shape", "vta.Tensor.dtype", "vta.Tensor.op", "vta.network.Executor",
    "vta.network.Executor.steps", "vta.network.Executor.run", "vta.network.Graph", "vta.network.Graph.name",
    "vta.network.Graph.input", "vta.network.Graph.constant", "vta.network.Graph.conv2d",
    "vta.network.Graph.dense", "vta.network.Graph.shr", "vta.network.Graph.add", "vta.network.Graph.relu",
    "vta.network.Graph.clip", "vta.network.Graph.leaky_relu", "vta.network.Graph.cast",
    "vta.network.Graph.max_pool", "vta.network.Graph.global_avg_pool", "vta.network.Graph.bias_add",
    "vta.network.Graph.flatten", "vta.network.Graph.requantize", "vta.network.Graph.set_output",
    "vta.network.Graph.place", "vta.network.Graph.input_name", "vta.network.Graph.output_name",
    "vta.network.Graph.shape", "vta.network.Graph.weight", "vta.network.Graph.weight_names",
    "vta.network.Graph.ops", "vta.network.Graph.save_weights", "vta.network.Graph.load_weights",
    "vta.network.Graph.calibrate_shifts", "vta.network.Graph.run_reference", "vta.network.OnnxModel",
    "vta.network.OnnxModel.name", "vta.network.OnnxModel.input_shape", "vta.network.OnnxModel.softmax",
    "vta.network.OnnxModel.ops", "vta.network.OnnxModel.run_float", "vta.network.OnnxModel.quantize",
    "vta.network.QuantizedModel", "vta.network.QuantizedModel.graph", "vta.network.QuantizedModel.softmax",
    "vta.network.QuantizedModel.input_frac_bits", "vta.network.QuantizedModel.output_scale",
    "vta.network.QuantizedModel.quantize_input", "vta.network.QuantizedModel.dequantize_output",
    "vta.network.QuantizedModel.layers", "vta.network.QuantizedModel.placements",
    "vta.network.generated_input", "vta.network.import_onnx", "vta.network.resnet18",
}


def documented(obj):
    """A docstring with a line that is not pybind11's signature line ("name(arg: type) -> type")."""
    lines = [l for l in (inspect.getdoc(obj) or "").splitlines() if l.strip()]
    return any(not (l.split("(")[0].strip().isidentifier() and "->" in l) for l in lines)


def public_names():
    for module in (vta, vta.network):
        for name in module.__all__:
            obj = getattr(module, name)
            yield f"{module.__name__}.{name}", obj
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if not member.startswith("_") and not isinstance(value, (int, str)):
                        yield f"{module.__name__}.{name}.{member}", value


def main():
    missing, fixed = [], []
    for name, obj in public_names():
        ok = documented(obj)
        if not ok and name not in UNDOCUMENTED:
            missing.append(name)
        if ok and name in UNDOCUMENTED:
            fixed.append(name)
    for name in missing:
        print(f"{name}: no docstring (a public name: say what it is for and what it raises)", file=sys.stderr)
    for name in fixed:
        print(f"{name} is documented now: take it off UNDOCUMENTED in {__file__}", file=sys.stderr)
    print(f"{len(UNDOCUMENTED)} names still undocumented (the backlog)")
    sys.exit(1 if missing or fixed else 0)


if __name__ == "__main__":
    main()
