#!/bin/sh
# gtkwave_view.sh TUTORIALS [SCREENSHOT.png]: the waveform view a user opens, checked in a real GTKWave.
# The convolution tutorial runs on the tsim with a window of cycles dumped (FST, then VCD); GTKWave
# opens the save file the tsim wrote beside it on a virtual X server (Xvfb), and a timer-driven Tcl
# script (gtkwave -R) reads back what GTKWave itself displays: the time window it opened on, and the
# values its signal pane shows at markers across the window (scripts/gtkwave_view.sh, which the waveform
# tutorial uses too). The test fails unless the window is the
# one dumped, the instructions read as disassembly through the translate filter, FSM states and the
# compute unit as the RTL's enum names, AXI read IDs as client names, and a screenshot of the screen
# is a picture (not blank). With a second argument the FST view's screenshot is kept there (PNG).
# Every wait is bounded (timeout): per view the tutorial 120 s (0.6 s on a quiet machine) and GTKWave
# 180 s (scripts/gtkwave_view.sh), so both views stay inside the test's own 720 s (tests/cli/CMakeLists.txt).
set -u
set -f  # (the signal names hold [msb:lsb]: never glob patterns)
root="$(cd "$(dirname "$0")/../.." && pwd)"
tutorials=$1
keep=${2:-}
. "$(dirname "$0")/bounded.sh"
scratch_dir
for tool in xwdtopnm ppmhist timeout; do  # (what this test runs itself; scripts/gtkwave_view.sh checks its own)
  command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup.sh (Debian packages xvfb, xauth, gtkwave, x11-apps, netpbm)"
done

from=20000
to=24000
core=TOP.vta_top.u_core
insns="$core.fetched[127:0] $core.ld_insn[127:0] $core.co_insn[127:0] $core.st_insn[127:0]"
states="$core.u_load.u_ctrl.state_q[1:0] $core.u_compute.u_ctrl.state_q[1:0] $core.u_store.u_ctrl.state_q[1:0]"
unit="$core.u_compute.unit_q[2:0]"
arid="TOP.vta_top.m_axi_arid_o[3:0]"

check_view() { # FORMAT: fst or vcd
  fmt=$1
  wave="$dir/conv.$fmt"
  VTA_QUIET=1 VTA_WAVE="$wave" VTA_WAVE_START=$from VTA_WAVE_STOP=$to timeout 120 "$tutorials" conv --target tsim \
    >"$dir/run.txt" 2>&1 || { cat "$dir/run.txt" >&2; fail "$fmt: the tutorial failed"; }
  [ -f "$dir/conv.gtkw" ] || fail "$fmt: no save file beside the dump"
  period=$(sed -n 's/^\[\*\] clock .* one cycle is \([0-9]*\) ps$/\1/p' "$dir/conv.gtkw")
  [ -n "$period" ] || fail "$fmt: the save file does not state the clock period"

  # GTKWave opens the save file on Xvfb; the shared probe (scripts/gtkwave_view.sh) writes the window and
  # the values the signal pane shows at markers across it, and the screen
  "$root/scripts/gtkwave_view.sh" "$dir/conv.gtkw" "$dir/view.$fmt" $insns $states $unit $arid ||
    fail "$fmt: GTKWave's view could not be read"
  out="$dir/view.$fmt/probe.txt"

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
  size=$(wc -c <"$dir/view.$fmt/screen.png")
  colours=$(xwdtopnm "$dir/view.$fmt/screen.xwd" 2>/dev/null | ppmhist -noheader 2>/dev/null | wc -l)
  [ "$size" -gt 20000 ] && [ "$colours" -gt 16 ] || fail "$fmt: the screenshot is blank ($size bytes, $colours colours)"
  echo "gtkwave_view.sh: $fmt: window $first-$2 (period $period), $(grep -c '^value' "$out") values read, screenshot $size bytes, $colours colours"
  rm -f "$dir/view.$fmt/screen.xwd" "$dir"/conv.*
}

check_view fst
[ -z "$keep" ] || cp "$dir/view.fst/screen.png" "$keep"
check_view vcd
echo "gtkwave_view.sh: passed"
