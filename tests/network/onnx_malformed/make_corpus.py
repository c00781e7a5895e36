#!/usr/bin/python3
"""Writes the malformed-model corpus the importer's tests read (tests/network/test_onnx.cc) and the
ONNX fuzzer starts from: each file is a small valid model with one defect, and expected.txt names
the words its error must contain. Needs Debian's python3-onnx; the files are committed.

    tests/network/onnx_malformed/make_corpus.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
cases = []


def conv_model(opset=13, attrs=None, weight=None, nodes=None, inputs=None, inits=None, outputs=None, dims=None):
    """A Conv (16 -> 16, 3x3, pad 1) and a Relu on a (1, 16, 8, 8) input, with the defect's changes."""
    w = weight if weight is not None else numpy_helper.from_array(np.ones((16, 16, 3, 3), np.float32), "w")
    a = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
    a.update(attrs or {})
    a = {k: v for k, v in a.items() if v is not None}
    conv = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **a)
    relu = helper.make_node("Relu", ["y"], ["z"], name="relu")
    g = helper.make_graph(nodes if nodes is not None else [conv, relu], "m",
                          inputs if inputs is not None else
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims or [1, 16, 8, 8])],
                          outputs if outputs is not None else [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
                          inits if inits is not None else [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def case(name, expect, model=None, raw=None):
    cases.append((name, expect, model, raw))


x_info = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 8, 8])
out_z = [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)]
w_ok = numpy_helper.from_array(np.ones((16, 16, 3, 3), np.float32), "w")
good = conv_model().SerializeToString()

case("empty", "not an ONNX model", raw=b"")
case("truncated", "not an ONNX model", raw=good[: len(good) // 2])
case("text", "not an ONNX model", raw=b"this is not a protobuf at all\n" * 4)
case("no_graph", "has no graph", model=onnx.ModelProto(ir_version=8, opset_import=[helper.make_opsetid("", 13)]))
case("opset_0", "opset 0", model=conv_model(opset=0))
case("opset_19", "opset 19", model=conv_model(opset=19))
case("no_default_opset", "no opset of the default", model=helper.make_model(
    helper.make_graph([], "m", [x_info], out_z), opset_imports=[helper.make_opsetid("com.example", 1)]))
case("unsupported_op", "node hsig (HardSigmoid): operator HardSigmoid is not supported", model=conv_model(nodes=[
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    helper.make_node("HardSigmoid", ["y"], ["z"], name="hsig")]))
case("leaky_alpha", "attribute alpha 1.5", model=conv_model(nodes=[
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    helper.make_node("LeakyRelu", ["y"], ["z"], name="lrelu", alpha=1.5)]))
case("custom_domain", "domain com.example", model=conv_model(nodes=[
    helper.make_node("Relu", ["x"], ["z"], name="relu", domain="com.example")]))
case("dilation", "attribute dilations", model=conv_model(attrs={"dilations": [2, 2]}))
case("asymmetric_pads", "attribute pads", model=conv_model(attrs={"pads": [1, 0, 1, 0]}))
case("pads_too_large", "attribute pads", model=conv_model(attrs={"pads": [3, 3, 3, 3]}))
case("auto_pad_same", "auto_pad SAME_UPPER", model=conv_model(attrs={"pads": None, "auto_pad": "SAME_UPPER"}))
case("strides_differ", "attribute strides", model=conv_model(attrs={"strides": [1, 2]}))
case("unknown_attribute", "attribute frobnicate is not supported", model=conv_model(attrs={"frobnicate": 1}))
case("group_mismatch", "attribute group 3", model=conv_model(attrs={"group": 3}))
case("kernel_shape_disagrees", "disagrees with the weight", model=conv_model(attrs={"kernel_shape": [5, 5]}))
case("non_square_kernel", "only square kernels", model=conv_model(
    attrs={"kernel_shape": [3, 1], "pads": [0, 0, 0, 0]},
    weight=numpy_helper.from_array(np.ones((16, 16, 3, 1), np.float32), "w")))
case("weight_channels", "do not agree", model=conv_model(
    weight=numpy_helper.from_array(np.ones((16, 8, 3, 3), np.float32), "w")))
case("missing_initializer", "reads w, which no earlier node produces and no initializer holds", model=conv_model(inits=[]))
case("weight_not_constant", "2 inputs besides its initializers", model=conv_model(
    inits=[], inputs=[x_info, helper.make_tensor_value_info("w", TensorProto.FLOAT, [16, 16, 3, 3])]))
case("cycle", "reads z, which no earlier node produces", model=conv_model(nodes=[
    helper.make_node("Relu", ["z"], ["y"], name="first"),
    helper.make_node("Relu", ["y"], ["z"], name="second")]))
case("out_of_order", "reads y, which no earlier node produces", model=conv_model(nodes=[
    helper.make_node("Relu", ["y"], ["z"], name="relu"),
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1])]))
case("output_twice", "defined twice", model=conv_model(nodes=[
    helper.make_node("Relu", ["x"], ["z"], name="a"), helper.make_node("Relu", ["x"], ["z"], name="b")]))
case("output_not_computed", "is not computed by any node", model=conv_model(
    outputs=[helper.make_tensor_value_info("nothing", TensorProto.FLOAT, None)]))
case("two_inputs", "2 inputs", model=conv_model(inputs=[x_info, helper.make_tensor_value_info("x2", TensorProto.FLOAT, [1])]))
case("int_input", "element type INT32", model=conv_model(inputs=[helper.make_tensor_value_info("x", TensorProto.INT32, [1, 16, 8, 8])]))
case("symbolic_channels", "dimension 1 is not a fixed size", model=conv_model(
    inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "c", 8, 8])]))
case("absurd_input", "is empty or too large", model=conv_model(dims=[1, 16, 1 << 20, 1 << 20]))


def raw_tensor(dims, raw=None, floats=None):
    """A float initializer "w" whose data need not match its dims (make_tensor would refuse it)."""
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=dims)
    if raw is not None:
        t.raw_data = raw
    if floats is not None:
        t.float_data.extend(floats)
    return t


case("absurd_initializer_dims", "beyond", model=conv_model(weight=raw_tensor([1 << 16, 1 << 16, 3, 3], raw=b"")))
case("initializer_short_data", "bytes of data for", model=conv_model(weight=raw_tensor([16, 16, 3, 3], raw=b"\0" * 100)))
case("initializer_float_data_count", "float_data values", model=conv_model(weight=raw_tensor([16, 16, 3, 3], floats=[1.0] * 7)))
case("initializer_nan", "not finite", model=conv_model(
    weight=numpy_helper.from_array(np.full((16, 16, 3, 3), np.nan, np.float32), "w")))
case("initializer_string", "element type STRING", model=conv_model(weight=helper.make_tensor(
    "w", TensorProto.STRING, [1], vals=[b"a"])))
ext = numpy_helper.from_array(np.ones((16, 16, 3, 3), np.float32), "w")
ext.ClearField("raw_data")
ext.data_location = TensorProto.EXTERNAL
ext.external_data.add(key="location", value="weights.bin")
case("external_data", "external data", model=conv_model(weight=ext))
case("kernel_larger_than_input", "is larger than the padded input", model=conv_model(dims=[1, 16, 1, 1], attrs={"pads": None}))
case("gemm_shapes", "do not multiply", model=conv_model(
    nodes=[helper.make_node("Flatten", ["x"], ["f"], name="flat"),
           helper.make_node("Gemm", ["f", "b"], ["z"], name="fc", transB=1)],
    inits=[numpy_helper.from_array(np.ones((10, 7), np.float32), "b")]))
case("gemm_trans_a", "transA 1", model=conv_model(
    nodes=[helper.make_node("Flatten", ["x"], ["f"], name="flat"),
           helper.make_node("Gemm", ["f", "b"], ["z"], name="fc", transA=1)],
    inits=[numpy_helper.from_array(np.ones((1024, 10), np.float32), "b")]))
case("add_broadcast", "adding constant", model=conv_model(
    nodes=[helper.make_node("Add", ["x", "k"], ["z"], name="add")],
    inits=[numpy_helper.from_array(np.ones((8,), np.float32), "k")]))
case("mul_negative", "one positive constant", model=conv_model(
    nodes=[helper.make_node("Mul", ["x", "k"], ["z"], name="mul")],
    inits=[numpy_helper.from_array(np.array([-2.0], np.float32), "k")]))
case("avgpool_ceil", "ceil_mode 1", model=conv_model(
    nodes=[helper.make_node("AveragePool", ["x"], ["z"], name="pool", kernel_shape=[2, 2], ceil_mode=1)], inits=[]))
case("maxpool_pads_before", "attribute pads", model=conv_model(
    nodes=[helper.make_node("MaxPool", ["x"], ["z"], name="pool", kernel_shape=[3, 3], pads=[1, 1, 0, 0])], inits=[]))
case("maxpool_indices", "Indices output", model=conv_model(
    nodes=[helper.make_node("MaxPool", ["x"], ["z", "i"], name="pool", kernel_shape=[2, 2])], inits=[]))
case("batchnorm_training", "training_mode 1", model=conv_model(
    nodes=[helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["z"], name="bn", training_mode=1)],
    inits=[numpy_helper.from_array(np.ones((16,), np.float32), n) for n in "sbmv"], opset=15))
case("reshape_reorders", "only (N, everything else)", model=conv_model(
    nodes=[helper.make_node("Reshape", ["x", "s"], ["z"], name="reshape")],
    inits=[numpy_helper.from_array(np.array([16, 64], np.int64), "s")]))
case("softmax_not_last", "must produce the graph's output", model=conv_model(
    nodes=[helper.make_node("Flatten", ["x"], ["f"], name="flat"), helper.make_node("Softmax", ["f"], ["s"], name="sm"),
           helper.make_node("Relu", ["s"], ["z"], name="relu")], inits=[]))
case("clip_bounds_reversed", "bounds", model=conv_model(
    nodes=[helper.make_node("Clip", ["x", "lo", "hi"], ["z"], name="clip")],
    inits=[numpy_helper.from_array(np.array(6.0, np.float32), "lo"), numpy_helper.from_array(np.array(0.0, np.float32), "hi")]))
case("dropout_mask_read", "its mask output is read", model=conv_model(
    nodes=[helper.make_node("Dropout", ["x"], ["d", "mask"], name="drop"),
           helper.make_node("Add", ["d", "mask"], ["z"], name="add")], inits=[]))

with open(os.path.join(HERE, "expected.txt"), "w") as listing:
    listing.write("# file: the words the importer's error must contain (written by make_corpus.py)\n")
    for name, expect, model, raw in cases:
        data = raw if raw is not None else model.SerializeToString()
        with open(os.path.join(HERE, name + ".onnx"), "wb") as f:
            f.write(data)
        listing.write(f"{name}.onnx: {expect}\n")
print(f"{len(cases)} files")
