#!/usr/bin/env bash
# One sweep directory, one run (issue 46): a run into a directory holding another spec's results starts
# clean, so nothing of the earlier run is merged or reported as verified; a result of another run is
# not taken; a folder holding anything else is refused untouched. A configuration file that leaves
# LOG_BUS_WIDTH to its default is the same configuration as the build (same hash: its tasks run here).
# A tasks.json with an index out of range and specs with keys of the wrong type are refused by name.
# Usage: one_run.sh SOURCE_DIR VTA_SWEEP WORK_DIR
set -uo pipefail
src=$1 sweep=$2 dir=$3
fail() { echo "one_run: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir"
cat >"$dir/a.json" <<'JSON'
{"workloads": [{"kind": "tutorial", "name": "matmul"}], "configs": [{"file": "vta_config.json"}]}
JSON
cat >"$dir/b.json" <<'JSON'
{"workloads": [{"kind": "tutorial", "name": "conv"}]}
JSON
cp "$src/config/vta_config.json" "$dir/vta_config.json"

# a file configuration is this build's (the shipped file leaves LOG_BUS_WIDTH out): verified here
timeout 300 "$sweep" run "$dir/a.json" --out "$dir/out" >"$dir/a.log" 2>&1 || fail "run A: $(cat "$dir/a.log")"
grep -q "^1 of 1 tasks verified" "$dir/a.log" || fail "run A: $(cat "$dir/a.log")"
a_hash=$(sed -n 's/.*"config_hash": "\([0-9a-f]*\)".*/\1/p' "$dir/out/tasks.json" | head -1)
cp "$dir/out/results/0.json" "$dir/a_result.json"

# B into the same directory: A's result is gone before B's tasks are written
"$sweep" expand "$dir/b.json" --out "$dir/out" >/dev/null || fail "expand B"
b_hash=$(sed -n 's/.*"config_hash": "\([0-9a-f]*\)".*/\1/p' "$dir/out/tasks.json" | head -1)
[ "$a_hash" = "$b_hash" ] || fail "the shipped configuration file ($a_hash) is not this build's configuration ($b_hash)"
[ -z "$(ls "$dir/out/results")" ] || fail "run A's results are still there: $(ls "$dir/out/results")"
[ ! -e "$dir/out/results.md" ] || fail "run A's merged table is still there"
"$sweep" merge "$dir/out" >"$dir/m1.log" 2>&1
[ $? -eq 1 ] || fail "merging tasks that did not run succeeded: $(cat "$dir/m1.log")"
grep -q "^0 of 1 tasks verified, 1 did not finish" "$dir/m1.log" || fail "merge: $(cat "$dir/m1.log")"
# A's result put back by hand is another run's (and another task's): not taken
cp "$dir/a_result.json" "$dir/out/results/0.json"
"$sweep" merge "$dir/out" >"$dir/m2.log" 2>&1
grep -q "^0 of 1 tasks verified" "$dir/m2.log" || fail "another run's result was merged: $(cat "$dir/m2.log")"
grep -q "matmul" "$dir/out/results.md" && fail "results.md shows the matrix multiply under run B: $(cat "$dir/out/results.md")"

# a folder holding something else is refused, untouched
mkdir -p "$dir/mine" && echo keep >"$dir/mine/notes.txt"
"$sweep" expand "$dir/b.json" --out "$dir/mine" >"$dir/r.log" 2>&1
[ $? -eq 2 ] || fail "a folder of other files was taken as a sweep directory"
grep -q "holds notes.txt, which is not part of a sweep directory" "$dir/r.log" || fail "refusal: $(cat "$dir/r.log")"
[ "$(cat "$dir/mine/notes.txt")" = keep ] || fail "the user's file was touched"

# a task index out of range in tasks.json, keys of the wrong type in specs: exit 2, named
sed -i 's/"index": 0/"index": 1099511627776/' "$dir/out/tasks.json"
"$sweep" task "$dir/out" 0 --here >"$dir/t.log" 2>&1
[ $? -eq 2 ] || fail "a tasks.json index of 2^40: $(cat "$dir/t.log")"
grep -q 'tasks\[0\]: "index" = 1099511627776 is out of range' "$dir/t.log" || fail "index: $(cat "$dir/t.log")"
expect_refused() {  # SPEC_TEXT MESSAGE
  echo "$1" >"$dir/bad.json"
  "$sweep" expand "$dir/bad.json" --out "$dir/bad" >"$dir/bad.log" 2>&1
  [ $? -eq 2 ] || fail "spec $1 was not refused with exit 2: $(cat "$dir/bad.log")"
  grep -qF "$2" "$dir/bad.log" || fail "spec $1: expected \"$2\": $(cat "$dir/bad.log")"
}
expect_refused '{"workloads": [{"kind": "tutorial", "name": 5}]}' 'workloads[0]: "name" must be a string, not 5'
expect_refused '{"workloads": [{"kind": 7}]}' 'workloads[0]: "kind" must be a string, not 7'
expect_refused '{"workloads": [{"kind": "resnet18", "seed": -1}]}' '"seed" = -1 is out of range'
expect_refused '{"workloads": [{"kind": "tutorial", "name": "conv"}], "backends": [1]}' '"backends" must be a non-empty list'
expect_refused '{"workloads": [{"kind": "tutorial", "name": "conv"}], "name": 3}' '"name" must be a string, not 3'
expect_refused '{"workloads": [{"kind": "tutorial", "name": "conv"}], "configs": [{"file": 3}]}' 'configs[0]: "file" must be a string'
expect_refused '{"workloads": [{"kind": "tutorial", "name": "conv"}], "configs": 4}' '"configs" must be a non-empty list'
expect_refused '{"workloads": [{"kind": "resnet18", "width": 100000}]}' 'width 100000 (1 to 256)'
echo "one sweep directory, one run: stale results never merged; wrong types refused by name"
