#!/usr/bin/env bash
# Builds and runs the benchmarks (numbers, not pass/fail): the fsim kernels and whole programs, the tsim speed and the
# tutorials' cycles against their bounds, the remote device, the compiled ResNet-18 layers' cycles, and the clean build
# time of the tsim (Verilator + C++).
# Extra arguments go to Google Benchmark.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
build="${VTA_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release
"$build/bench/vta_bench_fsim" "$@"
# whole programs through the reference's vta() entry point: 536 per sweep, against the reference's 2.1 s
"$build/bench/vta_bench_shim" "$@"
"$build/bench/vta_bench_tsim" "$@"
# the remote device: latency, copy throughput, tutorials remote vs local (alternated, 5 repetitions)
"$build/bench/vta_bench_remote" --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true "$@"
# every ResNet-18 convolution compiled and run on the tsim: cycles against the compute/memory bounds
"$build/tools/vta-compiled-tutorials" resnet18 --target tsim
# the whole quantized ResNet-18: reference, compile, one inference on the fsim and on the tsim
"$build/bench/vta_bench_network" "$@"

# the tsim against an earlier commit (bench/tsim_speed.py --base REV; default 94934a5), side by side:
# cycles per second alternated and instructions per cycle under callgrind. Minutes: it builds REV once.
if [ "${VTA_BENCH_TSIM_BASE:-}" != "" ]; then
  /usr/bin/python3 "$root/bench/tsim_speed.py" --base "$VTA_BENCH_TSIM_BASE" --build "$build"
fi

# a module called from Python against the same call from C++ (the Python package; alternated)
if [ -d "$build/python/vta" ]; then
  PYTHONPATH="$build/python-compat:$build/python" /usr/bin/python3 "$root/bench/python_overhead.py"
fi

# Clean build time of the tsim library alone (configure runs Verilator; then the C++ compile).
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s.%N)
cmake -S "$root" -B "$tmp" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVTA_BUILD_TESTS=OFF -DVTA_BUILD_EXAMPLES=OFF \
  -DVTA_BUILD_BENCHMARKS=OFF -DVTA_BUILD_HW_TESTS=OFF >/dev/null
configured=$(date +%s.%N)
cmake --build "$tmp" --target vta_tsim --parallel "$(nproc)" >/dev/null
built=$(date +%s.%N)
printf 'tsim clean build: %.1f s (configure incl. Verilator %.1f s, compile %.1f s, %d cores)\n' \
  "$(awk "BEGIN{print $built - $start}")" "$(awk "BEGIN{print $configured - $start}")" \
  "$(awk "BEGIN{print $built - $configured}")" "$(nproc)"
