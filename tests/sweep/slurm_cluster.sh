#!/usr/bin/env bash
# slurm_cluster.sh SOURCE_DIR PROGRAM: the repository's single-node Slurm cluster (scripts/slurm.sh)
# starts in a directory of its own, runs one job array of VTA programs (one task per array index: the
# compiled tutorials on the fsim and the tsim), and each task's output equals the same program run
# here without Slurm (every line but the wall times); the cluster stops at the end whatever happens.
# Every wait is bounded. Exit 77 (skipped) when not root: slurmd runs jobs as their users.
set -euo pipefail
source_dir=$1
program=$2
[ "$(id -u)" -eq 0 ] || { echo "slurm_cluster.sh: needs root; skipped"; exit 77; }
work=$(mktemp -d)
cluster="$work/cluster"
trap '"$source_dir/scripts/slurm.sh" stop "$cluster"; rm -rf "$work"' EXIT
eval "$("$source_dir/scripts/slurm.sh" start "$cluster")"
export SLURM_CONF

tasks=("matmul --target fsim" "conv --target fsim" "matmul --target tsim" "conv --target tsim")
cat >"$work/task.sh" <<SCRIPT
#!/usr/bin/env bash
set -euo pipefail
tasks=($(printf '"%s" ' "${tasks[@]}"))
exec "$program" \${tasks[\$SLURM_ARRAY_TASK_ID]}
SCRIPT
chmod +x "$work/task.sh"
mkdir -p "$work/out"
start=$(date +%s)
timeout 300 sbatch --wait --quiet --array=0-$((${#tasks[@]} - 1)) --output="$work/out/%a.log" "$work/task.sh" ||
  { echo "slurm_cluster.sh: the job array failed:"; tail -n 20 "$work"/out/*.log "$cluster"/log/*.log; exit 1; }
echo "slurm_cluster.sh: ${#tasks[@]} array tasks ran in $(($(date +%s) - start)) s"

# the same programs here; the lines compared drop what depends on the host (wall times, speeds)
strip() { grep -v -E "cycles/s|simulated in| s\)|seconds" "$1"; }
for i in "${!tasks[@]}"; do
  # shellcheck disable=SC2086
  "$program" ${tasks[$i]} >"$work/local-$i.log" 2>&1
  if ! diff <(strip "$work/local-$i.log") <(strip "$work/out/$i.log") >"$work/diff"; then
    echo "slurm_cluster.sh: task $i (${tasks[$i]}) differs from the local run:"
    cat "$work/diff"
    exit 1
  fi
  grep -q "verified" "$work/out/$i.log" || { echo "slurm_cluster.sh: task $i did not verify"; cat "$work/out/$i.log"; exit 1; }
done
echo "slurm_cluster.sh: every task's output equals the local run's"
