#!/bin/sh
# gtkwave_view.sh SAVEFILE.gtkw OUT_DIR [SIGNAL...]: opens a waveform's GTKWave save file (the one the
# tsim writes beside VTA_WAVE's dump) in a real GTKWave on a virtual X server (Xvfb) and, once the view
# has loaded, writes what GTKWave shows into OUT_DIR: probe.txt ("window START END", then for each
# SIGNAL "value NAME = SHOWN" at 39 markers across the window) and screen.png, the screen as GTKWave drew
# it. Used by the waveform tutorial (docs/tutorials) for its picture and by ctest Cli.Tsim.GtkwaveView.
# Needs xvfb-run, xauth, gtkwave, xwd and netpbm (scripts/setup.sh). Every wait is bounded: GTKWave has
# 3 minutes, and the probe gives up after 2 if the view never settles.
set -u
[ $# -ge 2 ] || { echo "usage: gtkwave_view.sh SAVEFILE.gtkw OUT_DIR [SIGNAL...]" >&2; exit 2; }
save=$1 out=$2
shift 2
fail() { echo "gtkwave_view.sh: $*" >&2; exit 1; }
for tool in xvfb-run xauth gtkwave xwd xwdtopnm pnmtopng timeout; do
  command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup.sh (Debian packages xvfb, xauth, gtkwave, x11-apps, netpbm)"
done
[ -f "$save" ] || fail "$save: no such save file"
mkdir -p "$out" || fail "cannot create $out"
rm -f "$out/probe.txt" "$out/screen.png" "$out/screen.xwd"

# The probe runs from GTKWave's main loop every 500 ms, and GTKWave's VCD loader runs that loop too (for
# its progress display): a probe that reads the view while a slow machine is still loading the dump
# reads half-built state (GTKWave crashed so under load). So it reads nothing until the save file's
# traces are in the signal pane and have stayed the same for two ticks, then probes once; after 240
# ticks (2 minutes) it gives up and says so.
cat >"$out/probe.tcl" <<TCL
if {![info exists ::ticks]} { set ::ticks 0; set ::stable 0; set ::last -1 }
incr ::ticks
set traces [gtkwave::getTotalNumTraces]
if {\$traces > 0 && \$traces == \$::last} { incr ::stable } else { set ::stable 0 }
set ::last \$traces
if {\$::ticks >= 240 && \$::stable < 2} {
  set f [open "$out/probe.txt" w]
  puts \$f "not ready after \$::ticks ticks: \$traces traces"
  close \$f
  gtkwave::/File/Quit
}
if {\$::stable == 2} {
  set f [open "$out/probe.txt" w]
  set start [gtkwave::getWindowStartTime]
  set end [gtkwave::getWindowEndTime]
  puts \$f "window \$start \$end"
  foreach name {$*} {
    for {set i 1} {\$i < 40} {incr i} {
      gtkwave::setMarker [expr {\$start + (\$end - \$start) * \$i / 40}]
      puts \$f "value \$name = [gtkwave::getTraceValueAtMarkerFromName \$name]"
    }
  }
  close \$f
  exec xwd -root -silent -out "$out/screen.xwd"
  gtkwave::/File/Quit
}
TCL
timeout 180 xvfb-run -a -s "-screen 0 1600x900x24" gtkwave -R "$out/probe.tcl" -P 500 "$save" \
  >"$out/gtkwave.log" 2>&1 || { tail -20 "$out/gtkwave.log" >&2; fail "GTKWave did not run the probe"; }
[ -s "$out/probe.txt" ] || fail "GTKWave wrote nothing (log: $(tail -3 "$out/gtkwave.log"))"
! grep -q "^not ready" "$out/probe.txt" || fail "GTKWave did not finish loading the view: $(cat "$out/probe.txt")"
xwdtopnm "$out/screen.xwd" 2>/dev/null | pnmtopng >"$out/screen.png" 2>/dev/null || fail "the screenshot cannot be converted"
