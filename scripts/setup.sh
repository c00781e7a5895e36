#!/usr/bin/env bash
# Installs every Debian package the project needs to build, test and run. Idempotent: when all are
# present it only checks (about a second). Needs root (or sudo) for the install step.
set -euo pipefail

PACKAGES=(
  g++ cmake ninja-build pkg-config     # toolchain
  nlohmann-json3-dev libcli11-dev      # configuration parsing, command lines
  libgtest-dev libgmock-dev            # tests
  libbenchmark-dev                     # benchmarks
  verilator                            # RTL lint and the cycle-accurate simulator
  gtkwave                              # waveform viewer; its fst2vcd writes VTA_WAVE=*.vcd
  xvfb xauth x11-apps netpbm           # GTKWave opened headless in a test (Xvfb), its screen saved (xwd, netpbm)
  clang-format clang-tidy              # format and lint (scripts/lint.sh)
  libboost-dev                         # the remote device server (Boost.Asio)
  libboost-filesystem-dev              # Boost.Process (vta-sweep: workers, sbatch, builds) links it
  libssl-dev                           # its token handshake (HMAC-SHA256, OpenSSL)
  libsystemc-dev                       # the SystemC/TLM-2.0 component and VTA_TARGET=systemc
  dpkg-dev file                        # cpack -G DEB: the package's Depends (dpkg-shlibdeps)
  clang libclang-rt-14-dev             # coverage-guided fuzzing: libFuzzer + sanitizer runtimes (scripts/fuzz.sh)
  ccache                               # the compiler cache: build trees and clones share objects (CMakeLists.txt)
  pybind11-dev python3-dev python3-numpy  # the Python package (python/, docs/PYTHON.md)
  libonnx-dev libprotobuf-dev          # ONNX import (docs/MODELS.md)
  libopenblas-dev                      # the imported models' float reference: convolutions as sgemm
  libonnx-testdata                     # ONNX's own node tests, run against the importer
  dataset-fashion-mnist                # the trained classifiers' images (models/fashion_mnist)
  slurm-wlm munge iproute2             # a single-node Slurm cluster for sweeps (scripts/slurm.sh; ss picks its ports)
  yosys                                # synthesis estimates of the RTL (hw/synth, docs/SYNTHESIS.md)
  cvc5                                 # the SMT solver of the proofs (hw/formal, docs/FORMAL.md)
  lcov                                 # the RTL coverage report in HTML (genhtml; scripts/coverage.sh, docs/COVERAGE.md)
  device-tree-compiler                 # the board kit's device-tree overlays, compiled in a test (hw/fpga, docs/FPGA.md)
  python3-torch python3-torchvision    # the model zoo exported by torch.onnx in a test (models/zoo, docs/MODELS.md)
  python3-matplotlib                   # the sweep's charts (sweep/charts.py, docs/SWEEP.md)
  python3-sphinx python3-sphinx-gallery python3-myst-parser python3-sphinx-rtd-theme  # the documentation site (docs/SITE.md)
  doxygen python3-breathe              # its C++ reference (Doxygen's XML of the public headers, through Breathe)
  chromium                             # the site opened in a headless browser in a test (tests/docs/test_browser.py)
)
# Retraining the classifiers (models/fashion_mnist/train.py) takes ONNX's Python package too: scripts/setup.sh --train
if [ "${1:-}" = "--train" ]; then PACKAGES+=(python3-onnx); fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
