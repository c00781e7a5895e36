#!/usr/bin/env bash
# The main job: sets everything up, builds, and runs the tutorial workloads end to end, verifying
# every output and printing the VTA statistics: both tutorials on the VTA runtime, first on the
# cycle-accurate simulator (the Verilated RTL, with cycle counts), then on the functional simulator;
# both checked against the seeds' statistics.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
build="${VTA_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release
echo

"$build/examples/vta-tutorials" all --target tsim
"$build/examples/vta-tutorials" all --target fsim
