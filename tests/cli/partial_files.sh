#!/bin/sh
# partial_files.sh COMPILED: every file a run writes is complete or absent after a signal (issue 46).
# The matrix multiply on the tsim with VTA_WAVE=w.vcd (a FST converted to VCD by fst2vcd when the run
# ends: seconds for 1.3 GB) and a call trace: SIGTERM, then SIGINT, while the VCD is being written leave
# no w.vcd, no trace, no partial file and no converter running, and the program says it was
# interrupted with exit status 143 / 130. Uninterrupted, both files are whole. Every wait is bounded.
set -u
compiled=$1
job=
cleanup() {
  [ -n "$job" ] && kill -9 "$job" 2>/dev/null
  pkill -9 -f "fst2vcd -o $dir" 2>/dev/null
}
. "$(dirname "$0")/bounded.sh"
scratch_dir

interrupt_conversion() {  # SIGNAL STATUS
  rm -rf "$dir/run" && mkdir "$dir/run"
  (cd "$dir/run" && VTA_WAVE=w.vcd VTA_TRACE_CALLS=t.txt exec "$compiled" matmul --target tsim >out 2>&1) &
  job=$!
  # the conversion is under way once the partial VCD grows
  wait_for '[ "$(stat -c %s "$dir"/run/.w.vcd.partial-* 2>/dev/null || echo 0)" -gt 1000000 ]' 60 \
    "SIG$1: no VCD conversion within 60 s: "'$(cat "$dir/run/out")'
  kill -s "$1" "$job"
  wait_for '! kill -0 "$job" 2>/dev/null' 30 "SIG$1: the program did not end within 30 s"
  wait "$job"
  status=$?
  job=
  [ "$status" -eq "$2" ] || fail "SIG$1: exit status $status, not $2: $(cat "$dir/run/out")"
  grep -q "interrupted by SIG$1" "$dir/run/out" || fail "SIG$1: no word of the interrupt: $(cat "$dir/run/out")"
  left=$(ls -A "$dir/run" | grep -v -e '^out$' -e '\.flt$' -e '\.gtkw$')
  [ -z "$left" ] || fail "SIG$1: files left half-written: $left"
  sleep 0.5
  if pgrep -f "fst2vcd -o $dir" >/dev/null; then fail "SIG$1: the converter is still running"; fi
}
interrupt_conversion TERM 143
interrupt_conversion INT 130

# uninterrupted: the VCD and the trace are whole
rm -rf "$dir/run" && mkdir "$dir/run"
(cd "$dir/run" && VTA_WAVE=w.vcd VTA_TRACE_CALLS=t.txt timeout 300 "$compiled" matmul --target tsim >out 2>&1) ||
  fail "the run failed: $(cat "$dir/run/out")"
grep -q '^\$enddefinitions' "$dir/run/w.vcd" || fail "the VCD has no header"
[ "$(tail -c 1 "$dir/run/w.vcd" | od -An -c | tr -d ' ')" = '\n' ] || fail "the VCD ends mid-line"
grep -q "VTASynchronize" "$dir/run/t.txt" || fail "the trace is not complete"
[ -z "$(ls -A "$dir/run" | grep partial)" ] || fail "partial files left after a whole run"
echo "partial_files.sh: interrupted, nothing half-written is left (SIGTERM 143, SIGINT 130); uninterrupted, both files whole"
