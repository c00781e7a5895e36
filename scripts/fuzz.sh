#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader of untrusted input (docs/FUZZING.md): configures a clang tree
# with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer (only the libraries the harnesses
# need are built), then runs each harness from its committed corpus.
# Usage: scripts/fuzz.sh [--long] [SECONDS]
#   default: every harness for 20 s (the test suite's run, label fuzz)
#   SECONDS: every harness for that long;  --long: for VTA_FUZZ_LONG_SECONDS (1 h), label fuzz-long
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
label=fuzz
seconds=20
for arg in "$@"; do
  case "$arg" in
    --long) label=fuzz-long ;;
    *) seconds="$arg" ;;
  esac
done
dir="${VTA_FUZZ_BUILD_DIR:-$root/build-fuzz}"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVTA_SANITIZERS=address,undefined,fuzzer-no-link -DVTA_BUILD_FUZZERS=ON -DVTA_BUILD_TESTS=OFF \
    -DVTA_BUILD_EXAMPLES=OFF -DVTA_BUILD_BENCHMARKS=OFF -DVTA_BUILD_TSIM=OFF -DVTA_BUILD_HW_TESTS=OFF \
    -DVTA_WARNINGS_AS_ERRORS=OFF >/dev/null
fi
cmake "$dir" -DVTA_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build "$dir" --parallel "$(nproc)" --target vta_fuzzers
echo "== fuzzing: every harness for $([ "$label" = fuzz ] && echo "$seconds s" || echo "the long run") =="
(cd "$dir" && ctest --output-on-failure -j "$(nproc)" -L "^$label\$")
