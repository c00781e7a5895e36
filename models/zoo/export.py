#!/usr/bin/python3
"""Exports the model zoo of docs/MODELS.md ("Exporters' networks") to ONNX as torch.onnx writes it:
torchvision's ResNet-18/34/50, MobileNetV2 and SqueezeNet 1.1, a detector shaped like YOLOv3-tiny
and a small U-Net, each with generated weights (nothing can be downloaded here, so no pretrained
ones) and batch norms given random statistics, so that every convolution folds a bias and a scale
as a trained network's would.

    models/zoo/export.py OUT_DIR [--image 224] [--seed 1] [--models resnet50,unet]

Writes OUT_DIR/NAME.onnx for each model (opset 13, batch 1, input "image", output "output").
The detector's two heads (a 13 x 13 and a 26 x 26 grid at 416) leave as one output: each head
flattened, then concatenated, as detection exporters commonly do. Needs Debian's python3-torch and
python3-torchvision (scripts/setup.sh installs them).
"""
import argparse
import os
import warnings

import torch
import torch.nn as nn
import torchvision


def conv_bn_leaky(cin, cout, kernel):
    return [nn.Conv2d(cin, cout, kernel, padding=kernel // 2, bias=False), nn.BatchNorm2d(cout),
            nn.LeakyReLU(0.1)]


class TinyYolo(nn.Module):
    """YOLOv3-tiny's layer structure (darknet's yolov3-tiny.cfg): seven 3x3 convolutions with max
    pools between them (the last pool of stride 1 after a zero pad on the right and bottom), a 1x1
    bottleneck, a coarse head, and a fine head on the bottleneck upsampled (nearest) and concatenated
    with the fifth convolution's output. `width` divides every channel count (16 keeps darknet's)."""

    def __init__(self, width=16, anchors=3, classes=80):
        super().__init__()
        w = [width * m for m in (1, 2, 4, 8, 16, 32, 64)]
        layers, cin = [], 3
        for i in range(5):
            layers += conv_bn_leaky(cin, w[i], 3) + [nn.MaxPool2d(2, 2)]
            cin = w[i]
        self.front = nn.Sequential(*layers[:-1])  # (the fifth convolution's output is the route)
        self.pool5 = nn.MaxPool2d(2, 2)
        self.back = nn.Sequential(*conv_bn_leaky(w[4], w[5], 3), nn.ZeroPad2d((0, 1, 0, 1)), nn.MaxPool2d(2, 1),
                                  *conv_bn_leaky(w[5], w[6], 3), *conv_bn_leaky(w[6], w[4], 1))
        out = anchors * (5 + classes)
        self.head1 = nn.Sequential(*conv_bn_leaky(w[4], w[5], 3), nn.Conv2d(w[5], out, 1))
        self.lateral = nn.Sequential(*conv_bn_leaky(w[4], w[3], 1), nn.Upsample(scale_factor=2, mode="nearest"))
        self.head2 = nn.Sequential(*conv_bn_leaky(w[3] + w[4], w[4], 3), nn.Conv2d(w[4], out, 1))

    def forward(self, x):
        route = self.front(x)
        neck = self.back(self.pool5(route))
        coarse = self.head1(neck)
        fine = self.head2(torch.cat([self.lateral(neck), route], 1))
        return torch.cat([torch.flatten(coarse, 1), torch.flatten(fine, 1)], 1)


class UNet(nn.Module):
    """A small U-Net: two levels down (two 3x3 convolutions each, max pool), a bottom, two levels up
    (a transposed 2x2 convolution of stride 2, the skip concatenated, two 3x3 convolutions), a 1x1
    convolution to `classes` channels."""

    def __init__(self, width=16, classes=4):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

        w = width
        self.down1, self.down2, self.bottom = block(3, w), block(w, 2 * w), block(2 * w, 4 * w)
        self.pool = nn.MaxPool2d(2)
        self.up2, self.dec2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2), block(4 * w, 2 * w)
        self.up1, self.dec1 = nn.ConvTranspose2d(2 * w, w, 2, stride=2), block(2 * w, w)
        self.out = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(self.pool(d1))
        b = self.bottom(self.pool(d2))
        u2 = self.dec2(torch.cat([self.up2(b), d2], 1))
        u1 = self.dec1(torch.cat([self.up1(u2), d1], 1))
        return self.out(u1)


MODELS = {
    "resnet18": lambda: torchvision.models.resnet18(weights=None),
    "resnet34": lambda: torchvision.models.resnet34(weights=None),
    "resnet50": lambda: torchvision.models.resnet50(weights=None),
    "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(weights=None),
    "squeezenet1_1": lambda: torchvision.models.squeezenet1_1(weights=None),
    "yolov3_tiny": TinyYolo,
    "unet": UNet,
}


def randomize_batch_norms(model, generator):
    """Statistics and affine parameters as a trained network might have them (a batch norm at its
    initial values folds into nothing)."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=generator) * 0.2)
            m.running_var.copy_(torch.rand(c, generator=generator) * 1.5 + 0.5)
            m.weight.data.copy_(torch.rand(c, generator=generator) + 0.5)
            m.bias.data.copy_(torch.randn(c, generator=generator) * 0.2)


def export(name, path, image, seed):
    torch.manual_seed(seed)
    model = MODELS[name]()
    with torch.no_grad():
        randomize_batch_norms(model, torch.Generator().manual_seed(seed))
    model.eval()
    warnings.filterwarnings("ignore")  # (the exporter's tracing notes, one screen per model)
    torch.onnx.export(model, torch.zeros(1, 3, image, image), path, input_names=["image"], output_names=["output"],
                      opset_version=13, do_constant_folding=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--image", type=int, default=224, help="the input's height and width (default 224)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated, of: " + ", ".join(MODELS))
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): " + ", ".join(unknown) + "; the zoo has " + ", ".join(MODELS))
    os.makedirs(args.out_dir, exist_ok=True)
    for name in names:
        path = os.path.join(args.out_dir, name + ".onnx")
        export(name, path, args.image, args.seed)
        print(path)


if __name__ == "__main__":
    main()
