#!/usr/bin/env bash
# Installs the Debian packages a command of the project needs (its purpose, below; by default every
# package). Idempotent: when all are present it only checks (about a second). Needs root (or sudo)
# for the install step.
set -euo pipefail

# What each command needs (`scripts/setup.sh PURPOSE`, PURPOSE one of):
#   run    what scripts/run.sh builds and runs: the toolchain, the libraries every default build tree links
#          (configuring one finds them all), Verilator, SystemC; nothing only a test, a proof, a chart or
#          the documentation site uses
#   all    (the default) everything: what run needs and what the test suite, the benchmarks, the proofs,
#          synthesis, the sweeps on Slurm, the model zoo and the documentation site use
#   train  all, and ONNX's Python package, to retrain the classifiers (models/fashion_mnist/train.py)
purpose="${1:-all}"
case "$purpose" in
  run | all | train) ;;
  --train) purpose=train ;;  # (the spelling before purposes)
  -h | --help) sed -n 2,12p "$0"; exit 0 ;;
  *) echo "setup.sh: unknown purpose '$purpose' (run, all or train)" >&2; exit 2 ;;
esac

PACKAGES=(
  g++ cmake ninja-build pkg-config     # toolchain
  ccache                               # the compiler cache: build trees and clones share objects (CMakeLists.txt)
  nlohmann-json3-dev libcli11-dev      # configuration parsing, command lines
  libgtest-dev libgmock-dev            # tests (a default tree configures them)
  libbenchmark-dev                     # benchmarks (likewise)
  verilator                            # RTL lint and the cycle-accurate simulator
  libboost-dev                         # the remote device server (Boost.Asio)
  libboost-filesystem-dev              # Boost.Process (vta-sweep: workers, sbatch, builds) links it
  libssl-dev                           # its token handshake (HMAC-SHA256, OpenSSL)
  libsystemc-dev                       # the SystemC/TLM-2.0 component and VTA_TARGET=systemc
  pybind11-dev python3-dev python3-numpy  # the Python package (python/, docs/PYTHON.md)
  libonnx-dev libprotobuf-dev          # ONNX import (docs/MODELS.md)
  libopenblas-dev                      # the imported models' float reference: convolutions as sgemm
  libeigen3-dev                        # the quantizer's rounding of 4-bit weights (frontend/src/weight_rounding.cc)
)
if [ "$purpose" != run ]; then
  PACKAGES+=(
  gtkwave                              # waveform viewer; its fst2vcd writes VTA_WAVE=*.vcd
  xvfb xauth x11-apps netpbm           # GTKWave opened headless in a test (Xvfb), its screen saved (xwd, netpbm)
  clang-format clang-tidy              # format and lint (scripts/lint.sh)
  dpkg-dev file                        # cpack -G DEB: the package's Depends (dpkg-shlibdeps)
  clang libclang-rt-14-dev             # coverage-guided fuzzing: libFuzzer + sanitizer runtimes (scripts/fuzz.sh)
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
fi
if [ "$purpose" = train ]; then PACKAGES+=(python3-onnx); fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages for '$purpose' already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
