#!/usr/bin/env bash
# Merging a sweep whose tasks counted RTL coverage: the per-process files under coverage/raw/ are merged
# by verilator_coverage (counts of the same point add up), the HTML report is written, and results.md
# carries the figure and the cover points no task reached. The two files here stand for two task
# processes of a coverage tree (the tsim writes them: tsim/src/coverage.cc); each holds a line, a
# toggle and two cover points, so the figure is known exactly.
# Usage: coverage_merge.sh SOURCE_DIR VTA_SWEEP WORK_DIR
set -euo pipefail
src=$1 sweep=$2 dir=$3
rm -rf "$dir"
"$sweep" expand "$src/tests/sweep/specs/coverage.json" --out "$dir" >/dev/null
grep -q '"coverage": true' "$dir/tasks.json" || { echo "no coverage task in $dir/tasks.json"; exit 1; }
mkdir -p "$dir/coverage/raw"
point() {  # FILE KIND(line|toggle|user) LINE NAME COUNT
  printf "C '\001f\002../hw/rtl/vta_alu.sv\001l\002%s\001page\002v_%s/vta_alu\001o\002%s\001h\002TOP.vta_top.u_core.u_compute.u_alu.%s' %s\n" \
    "$3" "$2" "$4" "$4" "$5" >>"$1"
}
for p in 1 2; do
  f="$dir/coverage/raw/node-$p.dat"
  echo "# SystemC::Coverage-3" >"$f"
  point "$f" line 10 block "$((p - 1))"        # covered by the second process only
  point "$f" line 20 other 0                  # never
  point "$f" toggle 30 s2_valid_q "$p"
  point "$f" user 40 AddImm "$((p - 1))"      # reached by the second process only
  point "$f" user 41 MulImm 0                 # never
done
"$sweep" merge "$dir" || true  # (the tasks themselves did not run: their results are missing)
fail() { echo "coverage_merge: $*"; exit 1; }
grep -q 'RTL coverage: line 50.0 % (1/2), toggle 100.0 % (1/1), cover points 50.0 % (1/2)' "$dir/results.md" ||
  fail "no merged figure in results.md: $(cat "$dir/results.md")"
grep -q 'never reached in u_core.u_compute.u_alu: MulImm' "$dir/results.md" || fail "the unreached cover point is not listed"
[ -f "$dir/coverage/html/index.html" ] || fail "no HTML report"
echo "coverage merged: figure, unreached points, HTML report"
