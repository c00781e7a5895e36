"""
Bringing your own ONNX model
============================

A trained network, exported to ONNX, on VTA: imported, quantized to 8 bits with power-of-two scales
from calibration images, each operator placed on VTA or the host with the reason, then run and
verified step by step against the plain C++ reference. The model is the depthwise-separable
Fashion-MNIST classifier trained with Debian's PyTorch (``models/fashion_mnist``), and the images are
Debian's ``dataset-fashion-mnist``.
"""

# %%
# Import
# ------
import gzip
import os

import numpy as np

import vta.network as vn

source = os.environ.get("VTA_SOURCE_DIR", ".")
model = vn.import_onnx(os.path.join(source, "models", "fashion_mnist", "dwsep.onnx"))
print(model.name, "input", model.input_shape)
for op in model.ops:
    print(f"  {op['name']:28} {op['onnx_op']:18} -> {op['kind']}")

# %%
# The images
# ----------
# 200 training images calibrate the scales; 200 test images measure the accuracy.


def read_idx(name):
    with gzip.open(os.path.join("/usr/share/datasets/fashion-mnist", name), "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


train = read_idx("train-images-idx3-ubyte.gz")[:200].astype(np.float32)[:, None] / 255
test = read_idx("t10k-images-idx3-ubyte.gz")[:200].astype(np.float32)[:, None] / 255
labels = read_idx("t10k-labels-idx1-ubyte.gz")[:200]

# %%
# Quantize and place
# ------------------
q = model.quantize(train)
print("input scale 2^-%d" % q.input_frac_bits)
for p in q.placements:
    print(f"  {p['op']:32} {p['placement']:5} {p['reason']}")

# %%
# Run on VTA
# ----------
# The graph's VTA steps are compiled once; each image runs on the fsim, every step verified against the
# reference. The accuracy of the int8 network is measured beside the float model's.
ex = vn.Executor(q.graph)
right_int8 = right_float = 0
cycles_steps = None
for image, label in zip(test, labels):
    run = ex.run(q.quantize_input(image[None]))
    assert run["verified"]
    right_int8 += int(np.argmax(q.dequantize_output(run["output"]))) == label
    right_float += int(np.argmax(model.run_float(image[None]))) == label
print(f"accuracy on {len(labels)} test images: int8 on VTA {100 * right_int8 / len(labels):.1f} %, "
      f"float {100 * right_float / len(labels):.1f} %")
print("one image's VTA counters:", run["vta"])
