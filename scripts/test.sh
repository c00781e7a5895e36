#!/usr/bin/env bash
# The whole test suite: sets everything up, builds the Release tree and runs every ctest test, checks
# format and lint, runs the random differential programs and the compiled schedules on the tsim of
# four other configurations (one the two-slot compute stage) and three of 4-bit elements, ResNet-18 on
# three, then builds a clang tree with AddressSanitizer +
# UndefinedBehaviorSanitizer (and libFuzzer's coverage instrumentation), runs the software tests again
# under them and fuzzes every reader of untrusted input for 20 s each under CI=true, 10 s elsewhere (label
# fuzz, docs/FUZZING.md: seed 1 either way, so the shorter run is the first part of CI's).
# A coverage tree runs the default regression with Verilator's coverage counters (docs/COVERAGE.md).
# The Verilated models are only built in the Release, configuration and coverage trees. Every tree
# compiles through ccache, so the configuration trees reuse the Release tree's objects.
# Options: --no-sanitizers skips the sanitizer tree; --no-lint skips format and lint; any other
# argument is passed to ctest (e.g. -L driver) and skips the configuration trees.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sanitizers=1
lint=1
ctest_args=()
for arg in "$@"; do
  case "$arg" in
    --no-sanitizers) sanitizers=0 ;;
    --no-lint) lint=0 ;;
    *) ctest_args+=("$arg") ;;
  esac
done
# each phase says what it does when it starts and how long it took when it ends (docs/PERFORMANCE.md)
source "$root/scripts/phase.sh"
phase "setup (Debian packages)"
"$root/scripts/setup.sh"
jobs="$(nproc)"

build="${VTA_BUILD_DIR:-$root/build}"
phase "Release build"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release
phase "Release tests (ctest)"
(cd "$build" && ctest --output-on-failure --timeout 600 -j "$jobs" "${ctest_args[@]}")
# what Yosys made of the RTL (test Synth.Xc7z020, docs/SYNTHESIS.md)
if [ -f "$build/tests/hw/synth/summary.txt" ]; then echo "Yosys synth_xilinx: $(cat "$build/tests/hw/synth/summary.txt")"; fi
if [ "$lint" -eq 1 ]; then
  phase "format and lint"
  "$root/scripts/lint.sh" "$build"
fi

# The RTL is configurable for real: a tsim per other configuration (BLOCK 8 with smaller buffers,
# BATCH 2, a 256-bit bus, the two-slot compute stage) must agree with the fsim on the random
# differential programs. Only the configuration-dependent objects are compiled again (the rest comes
# from the compiler cache).
basic_configuration() {  # CFG: the tsim differential, the compiled schedules, the board kit
  local cfg=$1 dir="$build-$1"
  "$root/scripts/build.sh" "$dir" -DCMAKE_BUILD_TYPE=Release -DVTA_CONFIG="$root/config/samples/$cfg.json" \
    -DVTA_BUILD_BENCHMARKS=OFF -DVTA_BUILD_HW_TESTS=OFF --target vta_tsim_diff_tests --target vta_compiled_tests >/dev/null
  echo "== tsim differential, config $cfg =="
  "$dir/tests/vta_tsim_diff_tests"
  # the compiler's GEMM and ALU schedules on this configuration (BATCH 2, BLOCK 8, ...), fsim and tsim
  echo "== compiled GEMM and ALU, config $cfg =="
  "$dir/tests/vta_compiled_tests" --gtest_filter='CompiledGemm.*:CompiledAlu.*'
  VTA_TARGET=tsim "$dir/tests/vta_compiled_tests" --gtest_filter='CompiledGemm.*:CompiledAlu.*'
  # the board kit for this configuration (its Vivado project's sources, the wrapper's lint at its bus)
  echo "== board kit, config $cfg =="
  ctest --test-dir "$dir" -R '^Fpga\.Kit$' --no-tests=error --output-on-failure | tail -1
}
# Element widths (docs/ISA.md, "Element widths"): a tsim per combination with 4-bit weights, inputs
# or both, its GEMM from the RTL's own text (VTA_TSIM_GEMM_DPI=OFF: the products as the DSPs make
# them), against the fsim on the random differential programs (tsim, SystemC and the board backend
# over the emulated board); the reference-style programs and both hand-written tutorials at the widths
# on the tsim, SystemC and the emulated board; the C API's tests; the board kit.
element_widths() {  # CFG
  local cfg=$1 dir="$build-$1" network=()  # (the network executor at 4-bit weights, and at 4-bit weights and activations)
  [ "$cfg" != w8a4 ] && network=(--target vta_network_tests)
  "$root/scripts/build.sh" "$dir" -DCMAKE_BUILD_TYPE=Release -DVTA_CONFIG="$root/config/samples/$cfg.json" \
    -DVTA_BUILD_BENCHMARKS=OFF -DVTA_BUILD_HW_TESTS=OFF -DVTA_TSIM_GEMM_DPI=OFF --target vta_tsim_diff_tests \
    --target vta_tsim_tests --target vta_driver_api_tests --target vta-tutorials --target vta-compiled-tutorials \
    --target vta-board-emulator "${network[@]}" >/dev/null
  echo "== element widths, config $cfg: tsim, SystemC and board differential, programs, tutorials (hand-written" \
    "and compiled), C API, kit${network:+, the network executor} =="
  "$dir/tests/vta_tsim_diff_tests" --gtest_filter='TsimDifferential.*' | grep -E '^differential: .* mismatches'
  VTA_DIFF_TARGET=systemc VTA_DIFF_PROGRAMS=200 VTA_DIFF_INVALID_PROGRAMS=200 "$dir/tests/vta_tsim_diff_tests" \
    --gtest_filter='TsimDifferential.RandomProgramsAgreeWithTheFsim:TsimDifferential.InvalidPrograms*' | tail -1
  "$dir/tests/vta_tsim_tests" --gtest_filter='Tsim.*' | tail -1
  "$dir/tests/vta_driver_api_tests" 2>&1 | tail -1  # (its misuse tests print their diagnostics)
  VTA_TARGET=systemc "$dir/tools/vta-tutorials" | grep -E '^(Successful|systemc:)'
  VTA_TARGET=tsim "$dir/tools/vta-compiled-tutorials" | grep -E '^(Successful|tsim:)'
  if [ ${#network[@]} -gt 0 ]; then
    for target in fsim tsim; do
      VTA_TARGET=$target "$dir/tests/vta_network_tests" --gtest_filter='NetworkExecutor.SmallResNet18AtTheBuildsWidths' |
        tail -1
    done
  fi
  VTA_DIFF_TARGET=fpga VTA_DIFF_PROGRAMS=200 "$dir/tools/vta-board-emulator" run --dma-mib 512 -- \
    "$dir/tests/vta_tsim_diff_tests" --gtest_filter='TsimDifferential.RandomProgramsAgreeWithTheFsim' | tail -1
  VTA_TARGET=fpga "$dir/tools/vta-board-emulator" run -- "$dir/tools/vta-tutorials" | grep -E '^(Successful|fpga:)'
  ctest --test-dir "$dir" -R '^Fpga\.Kit$' --no-tests=error --output-on-failure | grep 'tests passed'
}
other_configuration() {  # CFG: what the test command checks on that configuration
  local cfg=$1 dir="$build-$1" out
  case $cfg in
    w4a8 | w8a4 | w4a4) element_widths "$cfg" ;;
    dual_issue)
      basic_configuration "$cfg"
      # the whole ResNet-18 on the two-slot compute stage's tsim, its programs made for it, verified
      echo "== ResNet-18, config dual_issue (tsim) =="
      "$root/scripts/build.sh" "$dir" --target vta-resnet18 >/dev/null
      out="$("$dir/tools/vta-resnet18" --target tsim -j 2)"
      echo "$out" | tail -3
      # (no step, nor the run, below the two-slot stage's bound: vta::cycle_bounds knows the stage)
      if ! echo "$out" | grep -q ' cycles (bound [0-9]*, +' || echo "$out" | grep -qE ' -[0-9]+% '; then
        echo "test.sh: ResNet-18 on the two-slot tsim ran below its cycle bound:"
        echo "$out"
        return 1
      fi
      ;;
    batch2)
      basic_configuration "$cfg"
      # the whole ResNet-18 on the fsim of the BATCH 2 configuration (two images), verified
      echo "== ResNet-18, config batch2 (fsim) =="
      "$root/scripts/build.sh" "$dir" --target vta-resnet18 >/dev/null
      "$dir/tools/vta-resnet18" --target fsim | tail -3
      ;;
    block32)  # (the fsim only: ResNet-18 on BLOCK 32, verified)
      echo "== ResNet-18, config block32 (fsim) =="
      "$root/scripts/build.sh" "$dir" -DCMAKE_BUILD_TYPE=Release -DVTA_CONFIG="$root/config/samples/block32.json" \
        -DVTA_BUILD_BENCHMARKS=OFF -DVTA_BUILD_HW_TESTS=OFF -DVTA_BUILD_TSIM=OFF --target vta-resnet18 >/dev/null
      "$dir/tools/vta-resnet18" --target fsim | tail -3
      ;;
    *) basic_configuration "$cfg" ;;
  esac
}
if [ "${#ctest_args[@]}" -eq 0 ]; then
  # A configuration's configure and checks run on one core, so the configurations are checked $jobs at
  # a time (parallel_jobs, scripts/phase.sh: each one's output printed whole when it ends, in this
  # order, the longest first; any failure fails the phase once all have ended). A warm run's gain: in a
  # cold one their trees' own objects fill both cores either way (docs/PERFORMANCE.md)
  phase "four other configurations (tsim differential, compiled schedules, board kit), three of 4-bit elements, ResNet-18 on three; $jobs at a time"
  parallel_jobs "$jobs" other_configuration w4a8 w4a4 dual_issue w8a4 batch2 block8 bus256 block32
  # RTL coverage of the default regression (docs/COVERAGE.md): its own tree, the figure printed, every
  # cover point of the RTL reached and at least 90 % of its lines
  phase "RTL coverage of the default regression (coverage tree)"
  "$root/scripts/coverage.sh" --build "$build-cov" --require-every-cover-point --min-line 90
fi

if [ "$sanitizers" -eq 1 ]; then
  asan="${VTA_ASAN_BUILD_DIR:-$root/build-asan}"
  if [ -f "$asan/CMakeCache.txt" ] && ! grep -q "^VTA_BUILD_FUZZERS:BOOL=ON" "$asan/CMakeCache.txt"; then
    echo "test.sh: $asan was configured before the sanitizer tree was a clang tree; configuring it again"
    rm -rf "$asan"
  fi
  # fuzzing: 20 s per reader in CI, 10 s on a newcomer's machine (seed 1: the first part of CI's inputs)
  fuzz_seconds=10
  if [ "${CI:-}" = true ]; then fuzz_seconds=20; fi
  phase "sanitizer build (clang: ASan, UBSan, libFuzzer)"
  # -O1 with line tables only, as libFuzzer's and ASan's documentation advise: stack traces keep their
  # files and lines, and the tree compiles in much less time than at -O2 -g. Its sources compile 16 to
  # a translation unit (CMake's unity build: Boost.Asio, JSON and GoogleTest read once per 16 files,
  # not per file; a third less CPU). The Release tree stays file by file: clang-tidy reads its compile
  # commands, and an edit there recompiles one file (docs/PERFORMANCE.md). The unity files include their
  # sources relatively (cmake/VtaUnity.cmake), so a clone in another folder finds them in the compiler cache.
  CC=clang CXX=clang++ "$root/scripts/build.sh" "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
    -DVTA_SANITIZERS=address,undefined,fuzzer-no-link -DVTA_BUILD_FUZZERS=ON -DVTA_FUZZ_SECONDS="$fuzz_seconds" \
    -DVTA_BUILD_BENCHMARKS=OFF -DVTA_BUILD_HW_TESTS=OFF -DVTA_BUILD_TSIM=OFF
  phase "sanitizer tests and $fuzz_seconds s of fuzzing per reader (ctest)"
  (cd "$asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure --timeout 900 -j "$jobs" -LE '^fuzz-long$' "${ctest_args[@]}")
fi
phase ""
# what to look at when the command got slower (docs/PERFORMANCE.md): the phases and the slowest tests
phase_summary
logs=()
for dir in "$build" "${asan:-}"; do
  if [ -n "$dir" ] && [ -f "$dir/Testing/Temporary/LastTest.log" ]; then logs+=("$dir/Testing/Temporary/LastTest.log"); fi
done
if [ "${#logs[@]}" -gt 0 ]; then slowest_tests "${asan:-}/Testing/Temporary/LastTest.log" "${logs[@]}"; fi
echo "test.sh: passed in $((SECONDS - t0)) s"
