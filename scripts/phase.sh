# Sourced by run.sh and test.sh: `phase NAME` ends the current phase (printing how long it took) and
# announces the next; `phase ""` ends the last one. `phase_summary` prints the phases, longest first;
# `slowest_tests ASAN_LOG LOG...` the ten slowest tests of ctest's logs; `parallel_jobs` runs a function
# for several arguments side by side (tests/cli/phase_summary.sh).
t0=$SECONDS
phase_name=""
phase_start=$SECONDS
phase_lines=()
phase() {
  if [ -n "$phase_name" ]; then
    echo "${0##*/}: -- $phase_name: $((SECONDS - phase_start)) s (total $((SECONDS - t0)) s)"
    phase_lines+=("$((SECONDS - phase_start)) s  $phase_name")
  fi
  phase_name=$1
  phase_start=$SECONDS
  if [ -n "$phase_name" ]; then echo "${0##*/}: -- $phase_name"; fi
}

phase_summary() {
  echo "${0##*/}: the phases, longest first (total $((SECONDS - t0)) s):"
  printf '%s\n' "${phase_lines[@]}" | sort -rn | sed 's/^/  /'
}

# The ten slowest tests in ctest's LastTest.log files, those of ASAN_LOG marked [asan]. The first ten
# are taken by awk, which reads to the end: `head` exits early, sort then dies of SIGPIPE once its
# output outgrows the pipe, and under pipefail that was the whole command's exit status (141).
slowest_tests() {
  local asan_log=$1
  shift
  echo "${0##*/}: the ten slowest tests (seconds; the sanitizer tree's marked [asan]):"
  awk -v asan_log="$asan_log" '/^[0-9]+\/[0-9]+ Test: / { name = $3 }
    /^Test time = / { printf "%8.1f  %s%s\n", $4, name, (FILENAME == asan_log ? " [asan]" : "") }' \
    "$@" | sort -rn | awk 'NR <= 10'
}

# `parallel_jobs N FUNCTION ARG...` runs FUNCTION ARG for each ARG, at most N at a time, each in a
# subshell of its own (errexit and pipefail on, its output to a file), then prints each one's output
# whole, in the order of the ARGs, and returns 1 when any of them failed (naming it), 0 otherwise.
# Every job is waited for: a failure does not leave the others running behind the command. Call it
# as a command of its own, not in a condition (`if`, `||`): bash ignores errexit in the jobs there too.
parallel_jobs() {
  local n=$1 fn=$2
  shift 2
  local logs pids=() args=() i status=0 code
  logs="$(mktemp -d)"
  for i in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$n" ]; do wait -n || true; done
    (
      set -euo pipefail
      "$fn" "$i"
    ) >"$logs/${#pids[@]}.log" 2>&1 &
    pids+=($!)
    args+=("$i")
  done
  for i in "${!pids[@]}"; do
    code=0
    wait "${pids[$i]}" || code=$?
    cat "$logs/$i.log"
    if [ "$code" -ne 0 ]; then
      echo "${0##*/}: $fn ${args[$i]} failed (exit status $code)"
      status=1
    fi
  done
  rm -rf "$logs"
  return $status
}
