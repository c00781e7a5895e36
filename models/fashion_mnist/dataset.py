#!/usr/bin/python3
"""Writes the Fashion-MNIST images and labels (Debian's dataset-fashion-mnist) as .npy files for vta-onnx.

    models/fashion_mnist/dataset.py OUT_DIR

OUT_DIR/test_images.npy     (10000, 1, 28, 28) float32 in [0, 1], as the models take them
OUT_DIR/test_labels.npy     (10000,) int32
OUT_DIR/calibration.npy     (200, 1, 28, 28) float32: the first 200 training images (never the test set)
"""
import gzip
import os
import sys

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    images = lambda name, n=None: (read_idx(name)[:n].astype(np.float32) / 255.0)[:, None, :, :]
    np.save(os.path.join(out, "test_images.npy"), images("t10k-images-idx3-ubyte.gz"))
    np.save(os.path.join(out, "test_labels.npy"), read_idx("t10k-labels-idx1-ubyte.gz").astype(np.int32))
    np.save(os.path.join(out, "calibration.npy"), images("train-images-idx3-ubyte.gz", 200))


if __name__ == "__main__":
    main()
