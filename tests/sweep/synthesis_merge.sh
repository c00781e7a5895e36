#!/usr/bin/env bash
# A sweep with "synthesis": true gets one synthesis task per configuration, and merging joins its
# figures into that configuration's resources, the table's LUT column and the Pareto chart's axis.
# The tutorial task runs for real (tsim: cycles for the chart); the synthesis task's result is the one Yosys's run would
# write (Synth.Xc7z020 runs Yosys itself), so this test takes a second.
# Usage: synthesis_merge.sh SOURCE_DIR VTA_SWEEP WORK_DIR
set -euo pipefail
src=$1 sweep=$2 dir=$3
rm -rf "$dir"
"$sweep" expand "$src/tests/sweep/specs/synthesis.json" --out "$dir" >/dev/null
grep -q '"label": "synthesis"' "$dir/tasks.json" || { echo "no synthesis task in $dir/tasks.json"; exit 1; }
"$sweep" task "$dir" 0 --here
hash=$(sed -n 's/.*"config_hash": "\([0-9a-f]*\)".*/\1/p' "$dir/tasks.json" | head -1)
run=$(sed -n 's/.*"run": "\([0-9a-f]*\)".*/\1/p' "$dir/tasks.json" | head -1)
cat >"$dir/results/1.json" <<JSON
{"index": 1, "run": "$run", "config": "this build", "config_hash": "$hash", "workload": {"kind": "synthesis"},
 "label": "synthesis", "backend": "yosys", "verified": true, "error": "", "seconds": 85.0,
 "utilization": {"lut": 28991, "ff": 8877, "bram36": 108.5, "dsp": 319}}
JSON
"$sweep" merge "$dir"
fail() { echo "synthesis_merge: $*"; exit 1; }
grep -q '| 28991 |' "$dir/results.md" || fail "the table has no LUT column with 28991: $(cat "$dir/results.md")"
grep -q 'tutorial matmul on tsim (LUTs):.*28991 LUTs' "$dir/results.md" || fail "the front is not drawn against LUTs"
grep -q '"bram36": 108.5' "$dir/results.json" || fail "results.json lacks the configuration's block RAMs"
grep -q '"cost_axis": "LUTs"' "$dir/pareto.json" || fail "pareto.json's cost axis is not LUTs"
# the charts (matplotlib, text kept as text): the configuration labelled, the axes named, with the
# energy-delay product against LUTs (the tsim task measured energy), and results.md showing them
for text in 'this build' '>LUTs<' '>cycles<' 'energy per run' 'energy-delay product' 'Pareto front'; do
  grep -q -- "$text" "$dir/pareto.svg" || fail "pareto.svg lacks '$text' (charts.log: $(cat "$dir/charts.log" 2>/dev/null))"
done
[ -s "$dir/pareto.png" ] || fail "no pareto.png"
grep -q '](pareto.svg)' "$dir/results.md" || fail "results.md does not show pareto.svg"
echo "synthesis figures joined: table, front and charts against LUTs"
