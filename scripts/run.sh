#!/usr/bin/env bash
# The main job: sets everything up, builds, and runs the tutorials end to end: each is declared,
# scheduled step by step and compiled by the compiler (the lowered program printed after each step),
# run on the cycle-accurate simulator (the Verilated RTL, with cycle counts), then on the functional
# simulator; every output verified, the statistics checked against the seeds'.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
build="${VTA_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release
echo

"$build/examples/vta-compiled-tutorials" all --target tsim --print
"$build/examples/vta-compiled-tutorials" all --target fsim
