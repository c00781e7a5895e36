#!/usr/bin/python3
"""Exports torchvision's ResNet-18 structure to ONNX with generated weights (nothing can be downloaded
here, so no pretrained weights), for comparing the imported network with the hand-built one
(vta::network::resnet18, docs/MODELS.md "ResNet-18 from ONNX").

    models/resnet18/export.py OUT.onnx [--seed N] [--image 224]

Batch norms keep their initial statistics (mean 0, variance 1, scale 1, shift 0), so they fold into
the convolutions without a bias, as in the hand-built network; the classifier keeps its bias.
Needs Debian's python3-torch and python3-torchvision (scripts/setup.sh installs them).
"""
import argparse

import torch
import torchvision


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--image", type=int, default=224)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    model = torchvision.models.resnet18(weights=None).eval()
    torch.onnx.export(model, torch.zeros(1, 3, args.image, args.image), args.out, input_names=["image"],
                      output_names=["logits"], opset_version=13, do_constant_folding=True)


if __name__ == "__main__":
    main()
