#!/usr/bin/env bash
# An onnx workload with inputs and labels: the task's top-1 accuracy (every input's run verified) equals
# the one vta-onnx measures on the same files, and the merged results carry it, its precision front
# and the accuracy chart. A bad accuracy field in a result is refused by name.
# Usage: precision.sh SOURCE_DIR VTA_SWEEP VTA_ONNX PYTHON3 WORK_DIR
set -euo pipefail
src=$1 sweep=$2 onnx=$3 python=$4 dir=$5
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "precision: $*"; exit 1; }
# 24 inputs in the model's shape and their labels (the classes in turn: the figure is what it is; it is
# the agreement with vta-onnx that is checked)
"$python" - "$dir" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(7)
np.save(f'{sys.argv[1]}/inputs.npy', rng.uniform(0, 1, (24, 1, 28, 28)).astype(np.float32))
np.save(f'{sys.argv[1]}/labels.npy', (np.arange(24) % 10).astype(np.int64))
PY
cat >"$dir/spec.json" <<JSON
{"name": "precision", "backends": ["fsim"],
 "workloads": [{"kind": "onnx", "model": "$src/models/fashion_mnist/cnn.onnx", "calibration": "inputs.npy",
                "inputs": "inputs.npy", "labels": "labels.npy", "images": 24}]}
JSON
"$sweep" run "$dir/spec.json" --out "$dir/sweep" --workers 1 >"$dir/run.log" 2>&1 || fail "the sweep failed: $(cat "$dir/run.log")"
got=$("$python" -c "import json,sys; a=json.load(open(sys.argv[1]))[0]['accuracy']; print('%.2f %d' % (a['top1_percent'], a['images']))" "$dir/sweep/results.json")
want=$("$onnx" "$src/models/fashion_mnist/cnn.onnx" --calibration "$dir/inputs.npy" --inputs "$dir/inputs.npy" \
  --labels "$dir/labels.npy" --target fsim | sed -n 's/^top-1 accuracy: [a-z0-9]* on VTA \([0-9.]*\) % ([0-9]* of \([0-9]*\)).*/\1 \2/p')
[ -n "$want" ] || fail "vta-onnx printed no top-1 line"
[ "$got" = "$want" ] || fail "the sweep's top-1 (and images) $got, vta-onnx's $want"
grep -q 'Precision front' "$dir/sweep/results.md" || fail "results.md has no precision front: $(cat "$dir/sweep/results.md")"
grep -q "| ${got% *} (float" "$dir/sweep/results.md" || fail "results.md's table lacks the top-1 column"
grep -q 'top-1 accuracy (%)' "$dir/sweep/pareto.svg" || fail "pareto.svg has no accuracy chart ($(cat "$dir/sweep/charts.log" 2>/dev/null))"
# a damaged accuracy is named, and the task reported failed
sed -i 's/"top1_percent": [0-9.e+-]*/"top1_percent": 250/' "$dir/sweep/results/0.json"
"$sweep" merge "$dir/sweep" >/dev/null 2>&1 && fail "a result with a top-1 of 250 % merged as verified"
grep -q 'accuracy.top1_percent must be a percentage' "$dir/sweep/results.json" || fail "the damaged field is not named"
# a mixed plan (4-bit weights, the layer 4 bits hurt most at 8): the same top-1 as vta-onnx's, and labelled so
cat >"$dir/mixed.json" <<JSON
{"name": "mixed", "backends": ["fsim"],
 "workloads": [{"kind": "onnx", "model": "$src/models/fashion_mnist/cnn.onnx", "calibration": "inputs.npy",
                "inputs": "inputs.npy", "labels": "labels.npy", "images": 24, "weight_bits": 4,
                "eight_bit_layers": 1}]}
JSON
"$sweep" run "$dir/mixed.json" --out "$dir/mixed" --workers 1 >"$dir/mixed.log" 2>&1 || fail "the mixed sweep failed: $(cat "$dir/mixed.log")"
got=$("$python" -c "import json,sys; a=json.load(open(sys.argv[1]))[0]['accuracy']; print('%.2f %d %d %d' % (a['top1_percent'], a['images'], a['weight_bits'], a['eight_bit_layers']))" "$dir/mixed/results.json")
want=$("$onnx" "$src/models/fashion_mnist/cnn.onnx" --calibration "$dir/inputs.npy" --inputs "$dir/inputs.npy" \
  --labels "$dir/labels.npy" --weight-bits 4 --eight-bit-layers 1 --target fsim |
  sed -n 's/^top-1 accuracy: [a-z0-9]* on VTA \([0-9.]*\) % ([0-9]* of \([0-9]*\)).*/\1 \2 4 1/p')
[ "$got" = "$want" ] || fail "the mixed plan's top-1, images, bits, layers $got, vta-onnx's $want"
grep -q 'onnx cnn (1 layer at 8-bit weights)' "$dir/mixed/results.md" || fail "the mixed plan's label is not in results.md"
# specs: inputs without labels, and a missing calibration file, refused by name (exit status 2)
sed 's/"labels": "labels.npy", //' "$dir/spec.json" >"$dir/no_labels.json"
set +e
"$sweep" expand "$dir/no_labels.json" --out "$dir/x" 2>"$dir/err1"; s1=$?
sed 's/"calibration": "inputs.npy"/"calibration": "gone.npy"/' "$dir/spec.json" >"$dir/gone.json"
"$sweep" expand "$dir/gone.json" --out "$dir/y" 2>"$dir/err2"; s2=$?
sed 's/"images": 24}/"images": 24, "eight_bit_layers": -1}/' "$dir/spec.json" >"$dir/negative.json"
"$sweep" expand "$dir/negative.json" --out "$dir/z" 2>"$dir/err3"; s3=$?
set -e
[ $s3 = 2 ] && grep -q 'eight_bit_layers -1 (0 to 10000 convolutions)' "$dir/err3" || fail "eight_bit_layers -1: $s3 $(cat "$dir/err3")"
[ $s1 = 2 ] && grep -q '"inputs" and "labels" go together' "$dir/err1" || fail "inputs without labels: $s1 $(cat "$dir/err1")"
[ $s2 = 2 ] && grep -q 'calibration: no file .*gone.npy' "$dir/err2" || fail "a missing calibration file: $s2 $(cat "$dir/err2")"
echo "precision: the sweep's top-1 ($got) is vta-onnx's, with its front and chart; bad specs and results named"
