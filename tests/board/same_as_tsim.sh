#!/bin/sh
# same_as_tsim.sh EMULATOR PROGRAM ARGS...: PROGRAM's output on the tsim and on the emulated board
# (VTA_TARGET=fpga) agree line for line (outputs, statistics, cycles), but for the backend's name in
# headings and the line reporting the simulation's speed, which is about the host.
set -eu
emulator=$1
shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$@" --target tsim >"$scratch/tsim.out"
"$emulator" run -- "$@" >"$scratch/fpga.out"
for f in tsim fpga; do
  grep -v -E '^(tsim|fpga): [0-9]+ cycles (simulated|run) in' "$scratch/$f.out" | sed -E 's/ on (tsim|fpga) ==$/ on TARGET ==/' >"$scratch/$f.cmp"
done
if ! diff -u "$scratch/tsim.cmp" "$scratch/fpga.cmp"; then
  echo "same_as_tsim: $* differs between the tsim and the board (above)" >&2
  exit 1
fi
lines=$(wc -l <"$scratch/fpga.cmp")
cycles=$(grep -c cycle_count "$scratch/fpga.cmp" || true)
echo "same_as_tsim: $lines lines, $cycles cycle counts, identical on the tsim and the board"
