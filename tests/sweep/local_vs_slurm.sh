#!/usr/bin/env bash
# local_vs_slurm.sh SOURCE_DIR VTA_SWEEP: one spec (the compiled tutorials, a small ResNet-18 and the
# depthwise-separable ONNX classifier, on the fsim and the tsim) run by vta-sweep's local executor and
# as a job array on the repository's single-node Slurm cluster: both merge to the same results (every
# field but wall times, the sweep directory's path and the run's id), every task verified. Exit 77 (skipped) when
# not root.
set -euo pipefail
source_dir=$1
sweep=$2
[ "$(id -u)" -eq 0 ] || { echo "local_vs_slurm.sh: needs root; skipped"; exit 77; }
work=$(mktemp -d)
trap '"$source_dir/scripts/slurm.sh" stop "$work/cluster"; rm -rf "$work"' EXIT
cat >"$work/spec.json" <<SPEC
{
  "name": "local-vs-slurm",
  "workloads": [
    {"kind": "tutorial", "name": "matmul"},
    {"kind": "tutorial", "name": "conv"},
    {"kind": "resnet18", "image": 64},
    {"kind": "onnx", "model": "$source_dir/models/fashion_mnist/dwsep.onnx", "calibration": "random:2"}
  ],
  "backends": ["fsim", "tsim"]
}
SPEC
timeout 600 "$sweep" run "$work/spec.json" --out "$work/local" --workers 2
eval "$("$source_dir/scripts/slurm.sh" start "$work/cluster")"
export SLURM_CONF
timeout 600 "$sweep" run "$work/spec.json" --out "$work/slurm" --executor slurm --timeout 500
/usr/bin/python3 - "$work/local/results.json" "$work/slurm/results.json" <<'PY'
import json, sys
def load(path):
    rows = json.load(open(path))
    for r in rows:
        r.pop("seconds", None), r.pop("command", None), r.pop("run", None)  # (each run its own id)
    return rows
local, slurm = load(sys.argv[1]), load(sys.argv[2])
assert len(local) == 8, len(local)
assert all(r["verified"] for r in local), [r for r in local if not r["verified"]]
assert local == slurm, "the merged results differ:\n%s\n%s" % (json.dumps(local, indent=1), json.dumps(slurm, indent=1))
cycles = [r["stats"]["cycle_count"] for r in local if r["backend"] == "tsim"]
assert all(c and c > 0 for c in cycles), cycles
print("local_vs_slurm.sh: %d tasks, the same merged results from both executors (tsim cycles %s)" % (len(local), cycles))
PY
grep -q "<testsuite name=\"vta-sweep\" tests=\"8\" failures=\"0\">" "$work/slurm/junit.xml"
