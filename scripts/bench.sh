#!/usr/bin/env bash
# Builds and runs the benchmarks (numbers, not pass/fail). Extra arguments go to Google Benchmark.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
build="${VTA_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release
"$build/bench/vta_bench_fsim" "$@"
