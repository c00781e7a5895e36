#!/usr/bin/python3
"""Trains the three Fashion-MNIST classifiers docs/MODELS.md runs on VTA and exports them to ONNX.

Everything comes from Debian: the images (dataset-fashion-mnist), PyTorch (python3-torch), ONNX
(python3-onnx). Deterministic for a given seed on one machine (CPU, fixed thread count).

    models/fashion_mnist/train.py [--out DIR] [--epochs N] [--models cnn,dwsep,resnet]

writes DIR/cnn.onnx, DIR/dwsep.onnx and DIR/resnet.onnx, and DIR/float_accuracy.json with each model's
top-1 accuracy over the 10,000 test images (float, as exported; the entries of models not trained are
kept). Inputs are (1, 1, 28, 28) float images in [0, 1]. Each model is initialised from seed 1 of its
own (the repository's cnn and dwsep were trained before that, one after the other from one seed; the
resnet, about 12 minutes on 2 cores, with --models resnet).
"""
import argparse
import json
import os
import time

import numpy as np
import torch
from torch import nn

from dataset import read_idx  # (this folder's: the images Debian's dataset-fashion-mnist holds)


def conv_bn(cin, cout, kernel=3, groups=1):
    return [nn.Conv2d(cin, cout, kernel, padding=kernel // 2, groups=groups, bias=False), nn.BatchNorm2d(cout),
            nn.ReLU()]


def cnn():
    """Three 3x3 convolutions (16, 32, 64 channels) with batch norm and ReLU, two max pools, a classifier."""
    return nn.Sequential(*conv_bn(1, 16), nn.MaxPool2d(2), *conv_bn(16, 32), nn.MaxPool2d(2), *conv_bn(32, 64),
                         nn.Flatten(), nn.Linear(64 * 7 * 7, 10))


def dwsep():
    """MobileNet-style: a 3x3 convolution, then depthwise-separable blocks (3x3 depthwise + 1x1 pointwise)."""
    return nn.Sequential(*conv_bn(1, 16), *conv_bn(16, 16, groups=16), *conv_bn(16, 32, kernel=1), nn.MaxPool2d(2),
                         *conv_bn(32, 32, groups=32), *conv_bn(32, 64, kernel=1), nn.MaxPool2d(2),
                         *conv_bn(64, 64, groups=64), *conv_bn(64, 64, kernel=1), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(64, 10))


class Residual(nn.Module):
    """ResNet's basic block: two 3x3 convolutions with batch norm, the input added (through a 1x1
    convolution with batch norm when the channels or the stride change), ReLU."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                  nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
        self.shortcut = nn.Identity() if cin == cout and stride == 1 else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.body(x) + self.shortcut(x))


def resnet():
    """A small ResNet: a 3x3 convolution (16 channels), three basic blocks (16, 32 and 64 channels, the
    last two of stride 2 with a downsample), average pool, classifier."""
    return nn.Sequential(*conv_bn(1, 16), Residual(16, 16), Residual(16, 32, 2), Residual(32, 64, 2),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


MODELS = {"cnn": cnn, "dwsep": dwsep, "resnet": resnet}


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(x[i:i + 1000]).argmax(1) for i in range(0, len(x), 1000)])
    return float((pred == y).float().mean())


def train(name, model, train_x, train_y, test_x, test_y, epochs, out):
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=epochs * (len(train_x) // 128))
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(1)
    for epoch in range(epochs):
        model.train()
        start = time.time()
        order = torch.randperm(len(train_x), generator=gen)
        for i in range(0, len(train_x) - 127, 128):
            idx = order[i:i + 128]
            opt.zero_grad()
            loss = loss_fn(model(train_x[idx]), train_y[idx])
            loss.backward()
            opt.step()
            sched.step()
        print(f"{name}: epoch {epoch + 1}/{epochs}: loss {loss.item():.3f}, test accuracy "
              f"{accuracy(model, test_x, test_y):.4f} ({time.time() - start:.0f} s)", flush=True)
    model.eval()
    path = os.path.join(out, f"{name}.onnx")
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), path, input_names=["image"], output_names=["logits"],
                      opset_version=13, do_constant_folding=True)
    return accuracy(model, test_x, test_y)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated, of: " + ", ".join(MODELS))
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    if any(n not in MODELS for n in names):
        parser.error("--models: the classifiers are " + ", ".join(MODELS))
    torch.manual_seed(1)
    torch.set_num_threads(args.threads)
    to_x = lambda a: torch.from_numpy(a.astype(np.float32) / 255.0).unsqueeze(1)
    train_x, train_y = to_x(read_idx("train-images-idx3-ubyte.gz")), torch.from_numpy(
        read_idx("train-labels-idx1-ubyte.gz").astype(np.int64))
    test_x, test_y = to_x(read_idx("t10k-images-idx3-ubyte.gz")), torch.from_numpy(
        read_idx("t10k-labels-idx1-ubyte.gz").astype(np.int64))
    path = os.path.join(args.out, "float_accuracy.json")
    result = {}
    if os.path.exists(path):
        with open(path) as f:
            result = json.load(f)
    for name in names:
        torch.manual_seed(1)
        make = MODELS[name]
        result[name] = {"top1": train(name, make(), train_x, train_y, test_x, test_y, args.epochs, args.out),
                        "epochs": args.epochs, "test_images": len(test_x)}
        print(f"{name}: float top-1 {result[name]['top1']:.4f}", flush=True)
    result["torch"] = torch.__version__
    with open(path, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
