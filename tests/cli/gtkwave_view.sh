#!/bin/sh
# gtkwave_view.sh TUTORIALS [SCREENSHOT.png]: the waveform view a user opens, checked in a real GTKWave.
# The convolution tutorial runs on the tsim with a window of cycles dumped (FST, then VCD); GTKWave
# opens the save file the tsim wrote beside it on a virtual X server (Xvfb), and a timer-driven Tcl
# script (gtkwave -R) reads back what GTKWave itself displays: the time window it opened on, and the
# values its signal pane shows at markers across the window. The test fails unless the window is the
# one dumped, the instructions read as disassembly through the translate filter, FSM states and the
# compute unit as the RTL's enum names, AXI read IDs as client names, and a screenshot of the screen
# is a picture (not blank). With a second argument the FST view's screenshot is kept there (PNG).
# Every wait is bounded (timeout).
set -u
tutorials=$1
keep=${2:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "gtkwave_view.sh: $*" >&2; exit 1; }
for tool in xvfb-run xauth gtkwave xwd xwdtopnm pnmtopng ppmhist timeout; do
  command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup.sh (Debian packages xvfb, xauth, gtkwave, x11-apps, netpbm)"
done

from=20000
to=24000
core=TOP.vta_top.u_core
insns="$core.fetched[127:0] $core.ld_insn[127:0] $core.co_insn[127:0] $core.st_insn[127:0]"
states="$core.u_load.state_q[1:0] $core.u_compute.state_q[1:0] $core.u_store.state_q[1:0]"
unit="$core.u_compute.unit_q[2:0]"
arid="TOP.vta_top.m_axi_arid_o[3:0]"

check_view() { # FORMAT: fst or vcd
  fmt=$1
  wave="$dir/conv.$fmt"
  VTA_QUIET=1 VTA_WAVE="$wave" VTA_WAVE_START=$from VTA_WAVE_STOP=$to timeout 300 "$tutorials" conv --target tsim \
    >"$dir/run.txt" 2>&1 || { cat "$dir/run.txt" >&2; fail "$fmt: the tutorial failed"; }
  [ -f "$dir/conv.gtkw" ] || fail "$fmt: no save file beside the dump"
  period=$(sed -n 's/^\[\*\] clock .* one cycle is \([0-9]*\) ps$/\1/p' "$dir/conv.gtkw")
  [ -n "$period" ] || fail "$fmt: the save file does not state the clock period"

  # The probe runs from GTKWave's main loop every 500 ms, and GTKWave's VCD loader runs that loop too
  # (for its progress display): a probe that reads the view while a slow machine is still loading the
  # dump reads half-built state (GTKWave crashed so under load). So it reads nothing until the save
  # file's traces are in the signal pane and have stayed the same for two ticks, then probes once;
  # after 240 ticks (2 minutes) it gives up and says so.
  cat >"$dir/probe.tcl" <<EOF
if {![info exists ::ticks]} { set ::ticks 0; set ::stable 0; set ::last -1 }
incr ::ticks
set traces [gtkwave::getTotalNumTraces]
if {\$traces > 0 && \$traces == \$::last} { incr ::stable } else { set ::stable 0 }
set ::last \$traces
if {\$::ticks >= 240 && \$::stable < 2} {
  set out [open "$dir/probe.$fmt.txt" w]
  puts \$out "not ready after \$::ticks ticks: \$traces traces"
  close \$out
  gtkwave::/File/Quit
}
if {\$::stable == 2} {
  set out [open "$dir/probe.$fmt.txt" w]
  set start [gtkwave::getWindowStartTime]
  set end [gtkwave::getWindowEndTime]
  puts \$out "window \$start \$end"
  for {set i 1} {\$i < 40} {incr i} {
    gtkwave::setMarker [expr {\$start + (\$end - \$start) * \$i / 40}]
    foreach name {$insns $states $unit $arid} {
      puts \$out "value \$name = [gtkwave::getTraceValueAtMarkerFromName \$name]"
    }
  }
  close \$out
  exec xwd -root -silent -out "$dir/screen.xwd"
  gtkwave::/File/Quit
}
EOF
  timeout 180 xvfb-run -a -s "-screen 0 1600x900x24" gtkwave -R "$dir/probe.tcl" -P 500 "$dir/conv.gtkw" \
    >"$dir/gtkwave.$fmt.txt" 2>&1 || { tail -20 "$dir/gtkwave.$fmt.txt" >&2; fail "$fmt: GTKWave did not run the probe"; }
  out="$dir/probe.$fmt.txt"
  [ -s "$out" ] || fail "$fmt: GTKWave wrote nothing (log: $(tail -3 "$dir/gtkwave.$fmt.txt"))"
  ! grep -q "^not ready" "$out" || fail "$fmt: GTKWave did not finish loading the view: $(cat "$out")"

  # the view opens on the dumped window, on the configuration's clock
  set -- $(sed -n 's/^window //p' "$out")
  first=$((from * period))
  last=$((to * period))
  [ "$1" -eq "$first" ] || fail "$fmt: the view starts at $1, not at cycle $from ($first)"
  span=$(($2 - $1))
  [ "$span" -ge $(((last - first) * 9 / 10)) ] && [ "$span" -le $(((last - first) * 13 / 10)) ] ||
    fail "$fmt: the view spans $span time units; the dump spans $((last - first))"

  # what the signal pane shows
  for name in $insns; do
    grep -F "value $name = " "$out" | grep -Eq " = #[0-9]+ (LOAD|STORE|GEMM|ALU|FINISH) " ||
      fail "$fmt: $name never shows a disassembled instruction: $(grep -F "value $name = " "$out" | sort -u | head -3)"
  done
  for name in $states; do
    bad=$(grep -F "value $name = " "$out" | grep -Ev " = St(Idle|Run)$" | head -1)
    [ -z "$bad" ] || fail "$fmt: a state is not named: $bad"
  done
  grep -F "value $unit = " "$out" | grep -Eq " = Unit(Gemm|Alu|Uop|Acc)$" || fail "$fmt: the compute unit is not named"
  grep -F "value $arid = " "$out" | grep -Eq " = (fetch \(instructions\)|uop|inp|wgt|acc)$" ||
    fail "$fmt: the AXI read IDs are not named: $(grep -F "value $arid = " "$out" | sort -u | head -3)"

  # the screen is a picture: GTKWave's window with text and waves, not one colour
  xwdtopnm "$dir/screen.xwd" 2>/dev/null | pnmtopng >"$dir/screen.$fmt.png" 2>/dev/null ||
    fail "$fmt: the screenshot cannot be converted"
  size=$(wc -c <"$dir/screen.$fmt.png")
  colours=$(xwdtopnm "$dir/screen.xwd" 2>/dev/null | ppmhist -noheader 2>/dev/null | wc -l)
  [ "$size" -gt 20000 ] && [ "$colours" -gt 16 ] || fail "$fmt: the screenshot is blank ($size bytes, $colours colours)"
  echo "gtkwave_view.sh: $fmt: window $first-$2 (period $period), $(grep -c '^value' "$out") values read, screenshot $size bytes, $colours colours"
  rm -f "$dir/screen.xwd" "$dir"/conv.*
}

check_view fst
[ -z "$keep" ] || cp "$dir/screen.fst.png" "$keep"
check_view vcd
echo "gtkwave_view.sh: passed"
