#!/bin/sh
# vta_command.sh VTA TUTORIALS COMPILED SAMPLES: the `vta` command as a user meets it (docs/CLI.md):
# capture both tutorials on the fsim, replay them on the tsim, disassemble, statistics, a damaged
# capture, a built module run on two backends with the same output, configurations checked, misuse.
set -eu
vta=$1 tutorials=$2 compiled=$3 samples=$4
. "$(dirname "$0")/bounded.sh"
scratch_dir

"$vta" capture -o "$dir/caps" -- "$tutorials" all --target fsim >"$dir/out" 2>"$dir/err" || fail "capture failed: $(cat "$dir/err")"
grep -q "2 runs captured" "$dir/err" || fail "capture did not list 2 runs: $(cat "$dir/err")"
set -- "$dir"/caps/*.vtacap
[ $# -eq 2 ] || fail "expected 2 capture files, found $#"
matmul=$1 conv=$2
for f in "$matmul" "$conv"; do
  "$vta" replay "$f" --target tsim >"$dir/out" || fail "replay of $f on tsim differs: $(cat "$dir/out")"
  grep -q "replay on tsim matches the capture" "$dir/out" || fail "no verdict for $f"
done
"$vta" disasm "$conv" --max-uops 1 >"$dir/out"
grep -q "loads 14 micro-ops into uop\[0, 14)" "$dir/out" || fail "disasm shows no micro-op load"
grep -q "uop\[0\] UOP dst_idx=0 src_idx=0 wgt_idx=0" "$dir/out" || fail "disasm shows no kernel"
grep -q "deps=\[push_prev\]" "$dir/out" || fail "disasm shows no dependency flags"
"$vta" stats --json "$conv" | grep -q '"gemm_counter": 451584' || fail "stats of the convolution"

# timelines: recorded on the tsim (Perfetto JSON), estimated (SVG), two runs stacked
"$vta" timeline "$conv" -o "$dir/conv.json" >"$dir/out" || fail "timeline json: $(cat "$dir/out")"
grep -q '"traceEvents"' "$dir/conv.json" && grep -q '"name":"GEMM #' "$dir/conv.json" || fail "no GEMM events in the trace"
grep -q "compute busy [0-9]*% memory" "$dir/out" || fail "no timeline summary: $(cat "$dir/out")"
# each stage's energy; with the idle term the three make up the run's energy as `vta stats` prints it
stages_uj=$(grep -o "energy [0-9.]* uJ" "$dir/out" | awk '{ s += $2 } END { if (NR == 3) printf "%.3f", s }')
stats_uj=$("$vta" stats "$conv" | awk '/^energy:/ { gsub(/[(,]/, " "); for (i = 1; i <= NF; i++) {
  if ($i == "energy:") t = $(i + 1); if ($i == "idle") d = $(i + 1) } } END { printf "%.3f", t - d }')
[ -n "$stages_uj" ] && awk -v a="$stages_uj" -v b="$stats_uj" 'BEGIN { exit !(a - b < 0.002 && b - a < 0.002) }' ||
  fail "stage energies ($stages_uj uJ) do not make up the run's without idle ($stats_uj uJ): $(cat "$dir/out")"
"$vta" timeline "$matmul" "$conv" --target fsim -o "$dir/both.svg" >/dev/null || fail "timeline svg"
[ "$(grep -c "(estimated)" "$dir/both.svg")" -eq 2 ] || fail "the SVG does not hold both runs"
[ "$(grep -c "token [0-9]*%; [0-9.]* uJ</text>" "$dir/both.svg")" -eq 6 ] || fail "the SVG has no energy per stage"
if "$vta" timeline "$matmul" "$conv" -o "$dir/two.json" 2>"$dir/err"; then fail "two runs in one JSON"; fi
# the estimate of a two-instruction compute stage (docs/TIMELINE.md): the convolution's threads share the
# accumulator's lower half, so under the halves rule only its micro-op loads overlap GEMMs (517,676 ->
# 517,324 cycles); with any disjoint footprints its requantization of thread 0 does too (512,554)
cycles_of() { "$vta" timeline "$conv" --target fsim -o "$dir/c.svg" "$@" | sed -n 's/.*(estimated): \([0-9]*\) cycles.*/\1/p'; }
[ "$(cycles_of)" = 517676 ] && [ "$(cycles_of --compute-issue 2)" = 517324 ] &&
  [ "$(cycles_of --compute-issue 2 --any-disjoint)" = 512554 ] || fail "two-instruction estimates: $(cycles_of --compute-issue 2)"
# (the convolution's GEMM-bound threads leave a dispatch window nothing to start early)
[ "$(cycles_of --compute-issue 2 --window 8)" = 517324 ] || fail "window 8: $(cycles_of --compute-issue 2 --window 8)"
if "$vta" timeline "$conv" --target fsim --window 2 -o "$dir/c.svg" 2>"$dir/err"; then fail "a window of one slot"; fi
grep -q "above 1 only with compute_issue 2" "$dir/err" || fail "window misuse not explained: $(cat "$dir/err")"
if "$vta" timeline "$conv" --compute-issue 2 -o "$dir/c.json" 2>"$dir/err"; then fail "a tsim timeline of a stage the RTL lacks"; fi
grep -q "this build's tsim does not have (COMPUTE_ISSUE 1, a window of 1): use --target fsim" "$dir/err" ||
  fail "no reason given: $(cat "$dir/err")"

# a damaged capture: refused, naming the damage
cp "$conv" "$dir/bad.vtacap"
printf 'X' | dd of="$dir/bad.vtacap" bs=1 seek=$(($(stat -c %s "$conv") - 1)) conv=notrunc 2>/dev/null
if "$vta" replay "$dir/bad.vtacap" 2>"$dir/err"; then fail "a damaged capture was replayed"; fi
grep -q "is corrupted (checksum" "$dir/err" || fail "damage not named: $(cat "$dir/err")"

# a built module: the same output on the fsim and the tsim
"$compiled" all --save-modules "$dir/mods" >/dev/null 2>&1
"$vta" run "$dir/mods/conv.vtam" --target fsim | grep "^output" >"$dir/fsim"
"$vta" run "$dir/mods/conv.vtam" --target tsim | grep "^output" >"$dir/tsim"
[ -s "$dir/fsim" ] && cmp -s "$dir/fsim" "$dir/tsim" || fail "module outputs differ: $(cat "$dir/fsim" "$dir/tsim")"
"$vta" run "$dir/mods/matmul.vtam" --target tsim --json | grep -q '"cycle_count": ' || fail "no cycles in --json"

# its estimate beside the bounds and, measured on the tsim, the error (the tutorial's 138,233 cycles)
"$vta" estimate "$dir/mods/matmul.vtam" >"$dir/est"
grep -Eq "^.*matmul.vtam: 1 device run, estimated [0-9]+ cycles \(compute bound 4288, memory bound [0-9]+" "$dir/est" ||
  fail "vta estimate: $(cat "$dir/est")"
"$vta" estimate "$dir/mods/matmul.vtam" --measure tsim --json >"$dir/est"
grep -q '"measured_on": "tsim", "measured_cycles": 138233' "$dir/est" || fail "vta estimate --measure: $(cat "$dir/est")"
# a module's estimate of the two-instruction stage reads its micro-ops as the call loads them: the capture's figure
"$vta" estimate "$dir/mods/conv.vtam" --compute-issue 2 --json | grep -q '"estimated_cycles": 517324,' ||
  fail "vta estimate --compute-issue 2: $("$vta" estimate "$dir/mods/conv.vtam" --compute-issue 2 --json)"
if "$vta" estimate "$conv" 2>"$dir/err"; then fail "estimate of a capture"; fi
grep -q "is not a module" "$dir/err" || fail "estimate misuse not explained: $(cat "$dir/err")"

# configurations
for c in "$samples"/*.json; do "$vta" config check "$c" >/dev/null || fail "$c refused"; done
sed 's/"LOG_BLOCK": *[0-9]*/"LOG_BLOCK": 9/' "$samples/default_1x16.json" >"$dir/bad.json"
if "$vta" config check "$dir/bad.json" 2>"$dir/err"; then fail "a bad configuration passed"; fi
grep -q "LOG_BLOCK" "$dir/err" || fail "the bad key is not named: $(cat "$dir/err")"
"$vta" config show | grep -q "LOG_BLOCK" || fail "config show"

# a waveform asked for on the command line (a device option, not an environment variable)
"$vta" run "$dir/mods/matmul.vtam" --target tsim --wave "$dir/m.vcd" --from 100 --to 600 >/dev/null ||
  fail "vta run --wave"
[ -s "$dir/m.vcd" ] || fail "no waveform written by vta run --wave"
# (times in ps at HW_FREQ 100 MHz: cycle 100 is #1000000)
[ "$(grep -m1 '^#[0-9]' "$dir/m.vcd")" = "#1000000" ] && ! grep -q '^#6000000$' "$dir/m.vcd" ||
  fail "the waveform is not the window asked for: $(grep -m1 '^#[0-9]' "$dir/m.vcd")"

# misuse
if "$vta" run "$conv" --target fsim --wave "$dir/w.fst" 2>"$dir/err"; then fail "--wave on the fsim"; fi
grep -q "needs a clocked backend" "$dir/err" || fail "--wave misuse not explained"
if "$vta" replay "$dir/mods/conv.vtam" 2>"$dir/err"; then fail "replay of a module"; fi
grep -q "is not a capture file" "$dir/err" || fail "replay misuse not explained"
echo "vta_command.sh: all checks passed"
