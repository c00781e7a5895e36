#!/bin/sh
# vta-onnx's tiling flags (vta/tools/tiling_options.h), on a backend that counts cycles: the tilings a
# run chose, saved with --save-tilings, run in the same cycles when read back with --tilings; the same
# file with one step's virtual threads changed to 1 runs verified in other cycles (the file is what
# the run uses); a wider search (--tune) runs verified; a file saved for another model is refused by
# the step it names. Programs made for the two-slot compute stage (--compute-issue 2 --window 8,
# vta/driver/compute_issue.h) run verified and are estimated below the same stage with today's tilings
# (the file's: only the search differs), and --window alone is refused.
# The first run's cycles are at or above its steps' bounds, step by step and summed.
# Usage: onnx_tilings.sh VTA_ONNX MODEL OTHER_MODEL TARGET WORKDIR
set -eu
onnx=$1 model=$2 other=$3 target=$4 dir=$5
rm -rf "$dir" && mkdir -p "$dir"
run() { "$onnx" "$model" --calibration random:1 --no-float --target "$target" "$@"; }
cycles() {  # the run's VTA cycles, after checking it verified
  grep -q 'verified: every step of all 1 runs' "$1" || { echo "not verified: $1"; cat "$1"; exit 1; }
  grep '^VTA: [0-9]* cycles per inference' "$1" | cut -d' ' -f2
}

run --save-tilings "$dir/chosen.json" > "$dir/first.txt"
first=$(cycles "$dir/first.txt")
[ -n "$first" ] || { echo "no cycles on $target"; exit 1; }
# the steps' bounds (vta::cycle_bounds) are bounds: no step's cycles below its own, the run's not below
# their sum
bound=$(sed -n "s/^VTA: [0-9]* cycles per inference.*(the steps' bounds: \([0-9]*\) cycles.*/\1/p" "$dir/first.txt")
if [ -z "$bound" ] || [ "$bound" -gt "$first" ]; then echo "the steps' bounds ($bound) above the cycles ($first)"; exit 1; fi
awk '/^step \(first input\)/ { table = 1; next }
     table && /^\// { steps++; if ($(NF-3) + 0 < $(NF-2) + 0) { print "below its bound: " $0; bad = 1 } }
     END { if (!steps) print "no step table"; exit bad || !steps }' "$dir/first.txt"
run --tilings "$dir/chosen.json" > "$dir/again.txt"
again=$(cycles "$dir/again.txt")
[ "$first" = "$again" ] || { echo "the saved tilings ran in $again cycles, the run that chose them in $first"; exit 1; }

/usr/bin/python3 - "$dir/chosen.json" "$dir/changed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
name = next(n for n, t in d["steps"].items() if t["virtual_threads"] > 1)
d["steps"][name]["virtual_threads"] = 1
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
run --tilings "$dir/changed.json" > "$dir/changed.txt"
changed=$(cycles "$dir/changed.txt")
[ "$changed" != "$first" ] || { echo "one step's virtual threads changed, the cycles did not ($first)"; exit 1; }

run --tune > "$dir/tuned.txt"
tuned=$(cycles "$dir/tuned.txt")

"$onnx" "$other" --calibration random:1 --no-float --target "$target" --save-tilings "$dir/other.json" > /dev/null
if run --tilings "$dir/other.json" > "$dir/refused.txt" 2>&1; then
  echo "a tilings file of another model was taken"; exit 1
fi
grep -q 'which is no VTA convolution here' "$dir/refused.txt" || { cat "$dir/refused.txt"; exit 1; }
estimate() { sed -n 's/^estimated cycles of the VTA steps: \([0-9]*\) .*/\1/p' "$1"; }
run --compute-issue 2 --window 8 > "$dir/dual.txt"
cycles "$dir/dual.txt" > /dev/null
run --tilings "$dir/chosen.json" --compute-issue 2 --window 8 > "$dir/dual_today.txt" 2>&1 || { cat "$dir/dual_today.txt"; exit 1; }
made=$(estimate "$dir/dual.txt") today=$(estimate "$dir/dual_today.txt")
[ -n "$made" ] && [ -n "$today" ] && [ "$made" -lt "$today" ] ||
  { echo "programs made for two slots: $made estimated cycles, today's on two slots: $today"; exit 1; }
if run --window 2 > "$dir/window.txt" 2>&1; then echo "--window without --compute-issue 2 was taken"; exit 1; fi
grep -q -- '--window needs --compute-issue 2' "$dir/window.txt" || { cat "$dir/window.txt"; exit 1; }

echo "onnx_tilings: chosen $first cycles (the steps' bounds $bound), read back $again, one step with 1 virtual thread $changed, --tune $tuned; another model's file refused; estimated on two slots: tilings searched for them $made, today's $today"
