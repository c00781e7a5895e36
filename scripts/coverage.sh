#!/usr/bin/env bash
# RTL coverage of a regression (docs/COVERAGE.md): builds a tsim with Verilator's coverage counters
# (line, toggle, the RTL's `VTA_COVER points) in its own tree, runs the regression there with every
# model's counts written under OUT/raw, merges them (verilator_coverage), writes the HTML report
# (genhtml) and prints the figure and the cover points never reached.
#
#   scripts/coverage.sh [--out DIR] [--build DIR] [--require-every-cover-point] [--min-line PCT] [-- CTEST_ARGS...]
#
# The regression is the tsim tests listed below (they reach what the whole `tsim` label reaches) unless
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
    --require-every-cover-point) require+=(--require-every-cover-point); shift ;;
    --min-line) require+=(--min-line "$2"); shift 2 ;;
    --) shift; ctest_args=("$@"); break ;;
    *) echo "coverage.sh: unknown argument $1 (--out DIR, --build DIR, --require-every-cover-point, --min-line PCT," \
         "-- CTEST_ARGS)" >&2; exit 2 ;;
  esac
done
# (absolute: the regression runs inside the tree, and the tsim writes its counts under this path)
build="$(realpath -m "$build")"
out="$(realpath -m "${out:-$build/coverage}")"
# The default regression: the tsim tests that together reach every cover point and every line the
# whole `tsim` label reaches, chosen by measuring each test's coverage and time under this tree's
# counters (docs/COVERAGE.md): 16 tests, 25 s of wall time on 2 cores (the label less the networks and
# the command-line tests, which reach no further line or cover point; the small ResNet-18 left it too
# when it had grown to 71 s of the 75, for 2 points of toggle coverage). Each test
# still runs in the Release tree's suite; here only for coverage. A renamed or removed one stops the
# run (the count check below); --require-every-cover-point and --min-line check what it reaches. The
# whole label: -- -L tsim -LE model.
regression=(
  Tsim.AluEveryOpcodeImmediateAndVectorWithAndWithoutCompression Tsim.AFullLoadQueueHoldsFetchUntilTheLoadsDrain
  Tsim.BlockedGemmOneAndTwoVirtualThreads Tsim.ConvolutionTutorial Tsim.MatrixMultiplyTutorial
  Tsim.ReferenceRegisterOffsets Tsim.TheHostsResetLetsTheBurstsInFlightFinish
  TsimDifferential.InvalidProgramsGetTheSameVerdict TsimDifferential.RandomProgramsAgreeUnderABusyMemory
  TsimErrors.BudgetOverrunIsATimeout TsimErrors.GemmIndexBeyondDepthIsFoundByTheHardware
  TsimHardwareChecks.IllegalMemoryTypes TsimHardwareChecks.MemoryModelChecksEachBurstAgainstItsAllocation
  TsimHardwareChecks.SramRangesBeyondDepth TsimTimeline.RecordsWhatEachStageDid
  TsimTokens.AQueueThatFillsUpGetsTheSameVerdictOnEveryBackend
)
# the test programs that hold them
regression_programs=(vta_tsim_tests vta_tsim_diff_tests vta_tsim_error_tests)
default_regression=0
if [ ${#ctest_args[@]} -eq 0 ]; then
  default_regression=1
  ctest_args=(-R "^($(IFS='|'; echo "${regression[*]//./[.]}"))\$")
fi
for tool in verilator_coverage genhtml; do
  command -v "$tool" >/dev/null || { echo "coverage.sh: $tool not found (scripts/setup.sh installs it)" >&2; exit 1; }
done

# (no hardware harnesses: the regression runs none of them, and their Verilated models with coverage
# counters were most of this tree's compile time) For the default regression only the test programs
# that hold its tests are built (their GoogleTest cases are registered when they are built, so the
# count check below also catches a test that moved to another program); for another, the whole tree.
targets=()
if [ "$default_regression" -eq 1 ]; then
  for program in "${regression_programs[@]}"; do targets+=(--target "$program"); done
fi
"$root/scripts/build.sh" "$build" "${targets[@]}" -DCMAKE_BUILD_TYPE=Release -DVTA_TSIM_COVERAGE=ON \
  -DVTA_BUILD_BENCHMARKS=OFF -DVTA_BUILD_PYTHON=OFF -DVTA_BUILD_HW_TESTS=OFF >/dev/null
# (checked before the last report is removed: a refused run leaves it as it was)
if [ "$default_regression" -eq 1 ]; then
  found=$(cd "$build" && ctest -N "${ctest_args[@]}" | sed -n 's/^Total Tests: //p')
  [ "$found" = "${#regression[@]}" ] || {
    echo "coverage.sh: $found of the ${#regression[@]} regression tests exist in $build (one renamed, removed or" \
      "moved to another program? the lists are in scripts/coverage.sh)" >&2
    exit 1
  }
fi
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
