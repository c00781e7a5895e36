#!/usr/bin/env bash
# The main job: sets everything up, builds, and runs the tutorials end to end: each is declared,
# scheduled step by step and compiled by the compiler (the lowered program printed after each step),
# run on the cycle-accurate simulator (the Verilated RTL, with cycle counts), then on the functional
# simulator; every output verified, the statistics checked against the seeds'. The tsim runs are
# captured with the `vta` command (docs/CLI.md): the convolution is then replayed on the SystemC
# platform and its timeline drawn (build/captures/, build/conv_timeline.svg).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/phase.sh"
phase "setup (Debian packages)"
"$root/scripts/setup.sh" run  # (only what this command builds and runs: scripts/setup.sh says what)
build="${VTA_BUILD_DIR:-$root/build}"
# only what the job runs: the compiled tutorials and the vta command (with every backend, SystemC's
# included); the tests, benchmarks and hardware harnesses are the test command's (scripts/test.sh)
phase "build (the compiled tutorials and the vta command)"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release --target vta-compiled-tutorials --target vta
echo

vta="$build/tools/vta"
captures="$build/captures"
rm -rf "$captures"
phase "the tutorials on the tsim, compiled step by step and captured"
"$vta" capture -o "$captures" -- "$build/tools/vta-compiled-tutorials" all --target tsim --print
phase "the tutorials on the fsim"
"$build/tools/vta-compiled-tutorials" all --target fsim

phase "the convolution's capture replayed on SystemC, its timeline drawn"
conv=$(ls "$captures"/*.vtacap | tail -n 1)
echo "== the convolution's captured run: replayed on systemc, its timeline =="
"$vta" replay "$conv" --target systemc | tail -n 1  # setup.sh installs SystemC: the backend is built
"$vta" timeline "$conv" -o "$build/conv_timeline.svg"
phase ""
