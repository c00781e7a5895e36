#!/usr/bin/env bash
# The main job: sets everything up, builds, and runs the tutorial workloads end to end, verifying
# every output and printing the VTA statistics. (Today: both tutorials on the VTA runtime and the
# functional simulator, checked against the seeds' statistics; the compiler and cycle-accurate simulator
# issues extend this script.)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
build="${VTA_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release
echo

"$build/examples/vta-tutorials" all
