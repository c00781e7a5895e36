#!/usr/bin/env bash
# RTL coverage of a regression (docs/COVERAGE.md): builds a tsim with Verilator's coverage counters
# (line, toggle, the RTL's `VTA_COVER points) in its own tree, runs the regression there with every
# model's counts written under OUT/raw, merges them (verilator_coverage), writes the HTML report
# (genhtml) and prints the figure and the cover points never reached.
#
#   scripts/coverage.sh [--out DIR] [--build DIR] [--require-every-cover-point] [-- CTEST_ARGS...]
#
# The regression is ctest's `tsim` label but the whole networks and the Cli.Tsim.* tests (below) unless
# CTEST_ARGS say otherwise (e.g. -- -L tsim -R Random).
# Results: DIR/merged.dat (verilator_coverage), DIR/coverage.info (lcov), DIR/html/index.html,
# DIR/summary.json. Defaults: DIR = build-cov/coverage, the tree build-cov.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-cov"
out=""
require=()
ctest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --require-every-cover-point) require=(--require-every-cover-point); shift ;;
    --) shift; ctest_args=("$@"); break ;;
    *) echo "coverage.sh: unknown argument $1 (--out DIR, --build DIR, -- CTEST_ARGS)" >&2; exit 2 ;;
  esac
done
# (absolute: the regression runs inside the tree, and the tsim writes its counts under this path)
build="$(realpath -m "$build")"
out="$(realpath -m "${out:-$build/coverage}")"
# The default regression: the tsim's tests but the whole networks (ResNet-18 whole and layer by layer, the
# classifiers) and the command-line tests of interrupts and the GTKWave view: 100 s instead of 455 s
# on 2 cores, every cover point still reached (--require-every-cover-point checks it; the last one the
# networks alone reached, a full load queue, has a test of its own), line coverage the same, toggle
# coverage 67.8 % instead of 69.0 % (docs/COVERAGE.md). The whole label: -- -L tsim -LE model.
[ ${#ctest_args[@]} -gt 0 ] ||
  ctest_args=(-L tsim -LE model -E '^Cli[.]Tsim[.]|^Network[.]ResNet18[.]tsim$|CompiledResNet18|Onnx[.]Classifiers')
for tool in verilator_coverage genhtml; do
  command -v "$tool" >/dev/null || { echo "coverage.sh: $tool not found (scripts/setup.sh installs it)" >&2; exit 1; }
done

# (no hardware harnesses: the regression runs none of them, and their Verilated models with coverage
# counters were most of this tree's compile time)
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DVTA_TSIM_COVERAGE=ON -DVTA_BUILD_BENCHMARKS=OFF \
  -DVTA_BUILD_PYTHON=OFF -DVTA_BUILD_HW_TESTS=OFF >/dev/null
rm -rf "$out"
mkdir -p "$out/raw"
start=$(date +%s)
# every tsim (and SystemC) model of the runs adds its counts to its process's file under raw/
(cd "$build" && VTA_COVERAGE_DIR="$out/raw" ctest --output-on-failure --timeout 1800 -j "$(nproc)" "${ctest_args[@]}") |
  tail -3
files=("$out"/raw/*.dat)
[ -e "${files[0]}" ] || { echo "coverage.sh: the regression wrote no coverage (no tsim run?)" >&2; exit 1; }
verilator_coverage --write "$out/merged.dat" "${files[@]}" >/dev/null
verilator_coverage --write-info "$out/coverage.info" "$out/merged.dat" >/dev/null
(cd "$root/tsim" && genhtml --quiet --output-directory "$out/html" --title "VTA RTL coverage" "$out/coverage.info") >"$out/genhtml.log" 2>&1 ||
  echo "coverage.sh: genhtml failed: $out/genhtml.log" >&2
/usr/bin/python3 "$root/scripts/coverage_report.py" "$out/merged.dat" --json "$out/summary.json" "${require[@]}"
echo "coverage: ${#files[@]} processes, $(($(date +%s) - start)) s; report $out/html/index.html"
