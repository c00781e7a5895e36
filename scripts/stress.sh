#!/usr/bin/env bash
# The default test suite under load, to find tests that fail by chance (issue 31): runs ctest RUNS
# times with more jobs than cores while a CPU hog (one busy process per core) competes with it, and
# reports every test that failed in any run. A test that fails here is a defect to fix at its root.
# Usage: scripts/stress.sh [--runs N] [--jobs J] [--no-hog] [BUILD_DIR] [-- CTEST_ARGS...]
#   defaults: 5 runs, 2 x cores jobs, the hog on, build/; e.g. scripts/stress.sh --runs 2 -- -L remote
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs=5
jobs=$((2 * $(nproc)))
hog=1
build="$root/build"
ctest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --no-hog) hog=0; shift ;;
    --) shift; ctest_args=("$@"); break ;;
    *) build="$1"; shift ;;
  esac
done
[ -f "$build/CTestTestfile.cmake" ] || { echo "stress.sh: $build is not a built tree (scripts/build.sh $build)" >&2; exit 2; }
build="$(cd "$build" && pwd)"  # (the runs' logs are written from inside the tree: a relative path broke them)

hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_hogs EXIT
if [ "$hog" -eq 1 ]; then
  for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    hogs+=($!)
  done
fi

failed_runs=0
declare -A failures=()
for run in $(seq "$runs"); do
  log="$build/Testing/stress-run-$run.log"
  mkdir -p "$(dirname "$log")"
  start=$(date +%s)
  if (cd "$build" && ctest -j "$jobs" --timeout 900 -LE 'long|fuzz-long' "${ctest_args[@]}" >"$log" 2>&1); then
    echo "stress.sh: run $run/$runs passed ($(( $(date +%s) - start )) s, $jobs jobs, hog: $hog)"
  else
    failed_runs=$((failed_runs + 1))
    while read -r name; do failures["$name"]=$(( ${failures["$name"]:-0} + 1 )); done \
      < <(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (.*)$/\1/p' "$log")
    echo "stress.sh: run $run/$runs FAILED ($(( $(date +%s) - start )) s): see $log"
  fi
done
if [ "$failed_runs" -eq 0 ]; then
  echo "stress.sh: $runs of $runs runs passed under load"
  exit 0
fi
echo "stress.sh: $failed_runs of $runs runs failed; tests that failed (runs):"
for name in "${!failures[@]}"; do echo "  $name (${failures[$name]})"; done
exit 1
