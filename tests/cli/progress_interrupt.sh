#!/bin/sh
# progress_interrupt.sh COMPILED [systemc]: a long tsim run as a user sees it (a ResNet-18 layer with its
# waveform dumped: tens of seconds): on a terminal a progress line appears after 2 s, with VTA_QUIET=1
# or stderr not a terminal there is none; SIGINT and SIGTERM stop the run at a cycle boundary with the
# interrupted diagnostic (where each stage is), a complete waveform and exit status 128 + the signal
# (130, 143) with one line saying so, not death by the signal. Every wait is bounded.
set -u
compiled=$1
pid=
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; }
. "$(dirname "$0")/bounded.sh"
scratch_dir
run="$compiled resnet18 --layer 1 --target tsim"

# the pid of the program under test (through /proc: no procps needed), not of script(1) or a shell
find_program() {
  for d in /proc/[0-9]*; do
    cmd=$( (tr '\0' ' ' <"$d/cmdline") 2>/dev/null) || continue
    case $cmd in
      "$compiled resnet18 --layer 1 --target "*) echo "${d#/proc/}"; return ;;
    esac
  done
}

# stop MODE SIGNAL: runs the layer (MODE tty: on a pseudo-terminal from script(1); quiet: the same
# with VTA_QUIET=1; file: stderr to a file), sends SIGNAL once the run is 2.5 s under way, checks
# the program stopped cleanly.
stop() {
  mode=$1 sig=$2
  rm -f "$dir/wave.fst" "$dir/out"
  case $mode in
    tty) VTA_WAVE="$dir/wave.fst" script -qec "$run" /dev/null >"$dir/out" 2>&1 & ;;
    quiet) VTA_QUIET=1 VTA_WAVE="$dir/wave.fst" script -qec "$run" /dev/null >"$dir/out" 2>&1 & ;;
    file) VTA_WAVE="$dir/wave.fst" $run >"$dir/out" 2>&1 & ;;
    systemc) VTA_WAVE="$dir/wave.fst" $compiled resnet18 --layer 1 --target systemc >"$dir/out" 2>&1 & ;;
  esac
  job=$!
  # the run is under way once the waveform holds dumped cycles
  wait_for '[ "$(stat -c %s "$dir/wave.fst" 2>/dev/null || echo 0)" -gt 100000 ]' 60 "$mode: no waveform within 60 s"
  if [ "$mode" = tty ]; then
    wait_for 'grep -q "cycles/s, " "$dir/out"' 60 '$mode: no progress line within 60 s: $(cat "$dir/out")'
  else
    sleep 2.5
  fi
  pid=$(find_program)
  [ -n "$pid" ] || fail "$mode: the program's process was not found"
  kill -s "$sig" "$pid"
  wait_for '! kill -0 "$pid" 2>/dev/null' 60 "$mode SIG$sig: the program did not stop within 60 s"
  wait "$job"
  status=$?
  pid=
  case $sig in INT) expected=130 ;; TERM) expected=143 ;; esac
  [ "$status" -eq "$expected" ] || fail "$mode SIG$sig: exit status $status, not $expected: $(cat "$dir/out")"
  grep -q "vta-compiled-tutorials: interrupted by SIG$sig" "$dir/out" ||
    fail "$mode SIG$sig: the program does not say it was interrupted: $(cat "$dir/out")"
  grep -q "error \[interrupted\]: interrupted by SIG$sig after [0-9]* cycles; the waveform .* is complete" "$dir/out" ||
    fail "$mode SIG$sig: no interrupted diagnostic: $(cat "$dir/out")"
  grep -q "compute: " "$dir/out" || fail "$mode SIG$sig: the diagnostic does not say where the stages are"
  if grep -q "Segmentation\|Aborted\|terminate called" "$dir/out"; then fail "$mode SIG$sig: crashed"; fi
  fst2vcd "$dir/wave.fst" 2>/dev/null | grep -q '^\$enddefinitions' || fail "$mode SIG$sig: the waveform is not complete"
  if [ "$mode" = tty ]; then
    grep -q "tsim: [0-9]* cycles, [0-9]* of 550 instructions, [0-9]* cycles/s" "$dir/out" ||
      fail "no progress line on a terminal: $(cat "$dir/out")"
  elif grep -q "cycles/s, " "$dir/out"; then
    fail "$mode: a progress line: $(cat "$dir/out")"
  fi
}

stop tty INT
stop tty TERM
stop quiet INT
stop file INT
# the virtual platform (when built): the same controller, its component's waveform closed
if [ "${2:-}" = systemc ]; then stop systemc INT; echo "progress_interrupt.sh: systemc: interrupted cleanly, waveform complete"; fi
echo "progress_interrupt.sh: progress on a terminal only, SIGINT and SIGTERM stop the run cleanly (tsim, systemc)"
