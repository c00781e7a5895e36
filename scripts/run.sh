#!/usr/bin/env bash
# The main job: sets everything up, builds, and runs the tutorial workloads end to end, verifying
# every output and printing the VTA statistics. (Today: the matrix-multiply tutorial as a hand-written
# instruction stream on the functional simulator; the runtime, compiler and cycle-accurate simulator
# issues extend this script.)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
build="${VTA_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release
echo
echo "== Matrix multiply blocking tutorial (hand-written VTA instruction stream) on ${VTA_TARGET:-fsim} =="
"$build/examples/vta_matmul_handwritten" --json
