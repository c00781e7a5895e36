#!/usr/bin/env bash
# A tune task searches every ranked tiling of ResNet-18's convolutions, runs the chosen ones on the
# tsim (verified), reports each step's estimate against its measured cycles and writes the tilings;
# vta-resnet18 --tilings then runs the network with exactly those tilings, verified.
# Usage: tune_then_run.sh SOURCE_DIR VTA_SWEEP VTA_RESNET18 WORK_DIR
set -euo pipefail
src=$1 sweep=$2 resnet=$3 dir=$4
rm -rf "$dir"
"$sweep" run "$src/tests/sweep/specs/tune.json" --out "$dir" --workers 1
fail() { echo "tune_then_run: $*"; exit 1; }
grep -q 'tune resnet18 64 on tsim: estimated [0-9]* cycles with the default search, [0-9]* tuned; measured [0-9]* (estimate [-+][0-9.]* %)' \
  "$dir/results.md" || fail "no tuning line in results.md: $(cat "$dir/results.md")"
[ -f "$dir/tilings/0.json" ] || fail "no tilings file"
out=$("$resnet" --image 64 --target fsim --tilings "$dir/tilings/0.json") || fail "vta-resnet18 --tilings failed: $out"
echo "$out" | grep -q "verified: every step's output equals the reference bit for bit" || fail "not verified: $out"
echo "tuned tilings written and run"
