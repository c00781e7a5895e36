#!/usr/bin/env bash
# phase_summary.sh SOURCE_DIR: the test command's closing report (scripts/phase.sh) under the test
# command's own shell options. `slowest_tests` over two ctest logs far larger than a pipe (5,000 tests
# each) prints exactly the ten slowest, longest first, the sanitizer log's marked [asan], and returns
# 0: taking them with `head` let sort die of SIGPIPE, which pipefail turned into exit status 141 at
# the end of a run whose tests had all passed. `phase_summary` lists the phases longest first.
# `parallel_jobs` runs at most N jobs at once, prints each one's output whole in the order given, and
# fails naming each job that failed, after every job has ended.
set -euo pipefail
source "$1/scripts/phase.sh"
. "$(dirname "$0")/bounded.sh"
scratch_dir

# ctest's LastTest.log shape: "N/M Test: NAME" ... "Test time =   T sec"
for log in release asan; do
  for i in $(seq 1 5000); do
    printf '%d/5000 Test: %s.t%d\nTest time =   %d.%d sec\n' "$i" "$log" "$i" $((i % 997)) $((i % 10))
  done > "$dir/$log.log"
done
[ "$(stat -c %s "$dir/release.log")" -gt 200000 ] || fail "the synthetic log is smaller than a pipe"

for round in 1 2 3 4 5; do  # (the SIGPIPE depended on timing: several rounds)
  out=$(slowest_tests "$dir/asan.log" "$dir/release.log" "$dir/asan.log") || fail "slowest_tests exited $?"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 11 ] || fail "round $round: not a header and ten tests:
$out"
done
# the largest time is 996.7 s (test 3987: 3987 % 997 = 996, 3987 % 10 = 7), in both logs
first=$(printf '%s\n' "$out" | sed -n 2p)
case "$first" in *"996."*) ;; *) fail "the first line is not the slowest: $first" ;; esac
printf '%s\n' "$out" | grep -q '\[asan\]' || fail "no test of the sanitizer log is marked [asan]:
$out"
printf '%s\n' "$out" | grep -q 'release\.t[0-9]*$' || fail "no test of the Release log listed:
$out"

# the phases, longest first
phase_lines=("3 s  short" "120 s  long" "40 s  middle")
summary=$(phase_summary)
[ "$(printf '%s\n' "$summary" | sed -n 2p)" = "  120 s  long" ] || fail "phases not longest first:
$summary"
# parallel_jobs: two at a time (a job counts the others running beside it through marker files), the
# outputs in the given order although the later jobs end first, a failure named and returned
job() {
  touch "$dir/running.$1"
  echo "job $1 starts beside $(($(find "$dir" -maxdepth 1 -name 'running.*' | wc -l) - 1)) other(s)"
  sleep "0.$((4 - $1))"
  rm "$dir/running.$1"
  [ "$1" -ne 2 ] || false  # (job 2 fails: errexit is on inside each job)
  echo "job $1 ends"
}
set +e  # (not `|| status=$?`: in a condition bash ignores errexit in the jobs too)
out=$(parallel_jobs 2 job 1 2 3)
status=$?
set -e
[ "$status" -eq 1 ] || fail "parallel_jobs returned $status with a failed job, not 1:
$out"
printf '%s\n' "$out" | grep -q '^job 1 ends$' || fail "job 1's output is missing:
$out"
printf '%s\n' "$out" | grep -q 'job 2 failed' || fail "the failed job is not named:
$out"
printf '%s\n' "$out" | grep -q '^job 2 ends$' && fail "job 2 went on after its failing command:
$out"
[ "$(printf '%s\n' "$out" | grep '^job [0-9] starts' | cut -d' ' -f2 | tr -d '\n')" = 123 ] ||
  fail "the outputs are not in the given order:
$out"
if printf '%s\n' "$out" | grep -q 'beside [2-9] other'; then fail "more than two jobs ran at once:
$out"; fi
out=$(parallel_jobs 2 job 1 3) || fail "parallel_jobs failed although every job passed:
$out"

echo "phase_summary.sh: ok"
