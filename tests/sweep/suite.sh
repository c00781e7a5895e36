#!/usr/bin/env bash
# A regression suite as a sweep workload: a folder of built modules (vta-compiled-tutorials
# --save-modules) and captured runs (vta capture). On the tsim each module must give the fsim's output
# and counters and each capture must replay as captured; a damaged capture fails the task, named.
# Usage: suite.sh VTA_SWEEP VTA_COMPILED_TUTORIALS VTA VTA_TUTORIALS WORK_DIR
set -euo pipefail
sweep=$1 compiled=$2 vta=$3 tutorials=$4 dir=$5
rm -rf "$dir"
mkdir -p "$dir/suite"
"$compiled" all --save-modules "$dir/suite" >/dev/null
"$vta" capture -o "$dir/suite" -- "$tutorials" matmul >/dev/null
printf '{"workloads": [{"kind": "suite", "dir": "suite", "seed": 3}], "backends": ["tsim"]}\n' >"$dir/spec.json"
fail() { echo "suite: $*"; exit 1; }
"$sweep" run "$dir/spec.json" --out "$dir/good" >/dev/null || fail "the suite did not verify: $(cat "$dir/good/results.md")"
grep -q '"file": "conv.vtam"' "$dir/good/results.json" || fail "conv.vtam was not run"
grep -q '"cycle_count": 760044' "$dir/good/results.json" || fail "the tsim's cycles are not the three kernels' (two matrix multiplies of 138,233, the convolution's module 483,578)"
# each task's energy (docs/ENERGY.md): its components add up, the CSV and the table carry it
/usr/bin/python3 - "$dir/good/results.json" <<'PY' || fail "no energy, or one whose parts do not add up: $(cat "$dir/good/results.json")"
import json, sys
for r in json.load(open(sys.argv[1])):
    e = r["energy"]
    parts = sum(e[k] for k in ("mac_pj", "alu_pj", "sram_pj", "dram_pj", "idle_pj"))
    assert e["total_pj"] > 0 and abs(parts - e["total_pj"]) <= 1e-6 * e["total_pj"], e
    assert e["power_mw"] > 0 and e["table"] == "45nm", e
PY
head -1 "$dir/good/results.csv" | grep -q ',energy_uj,power_mw,' || fail "results.csv has no energy column"
grep -q '| energy uJ |' "$dir/good/results.md" || fail "results.md has no energy column"
cap=$(ls "$dir"/suite/*.vtacap)
head -c 200 "$cap" >"$dir/suite/damaged.vtacap"
if "$sweep" run "$dir/spec.json" --out "$dir/bad" >/dev/null; then fail "a damaged capture verified"; fi
grep -q 'kernels that differ: damaged.vtacap' "$dir/bad/results.json" || fail "the damaged capture is not named"
echo "suite verified on the tsim; a damaged capture named"
