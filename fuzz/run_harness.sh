#!/bin/bash
# Runs one libFuzzer harness (the arguments: the program and its options) for ctest and, when it fails,
# prints its report again at the end: libFuzzer's progress lines come first and a CI log that keeps only
# the beginning and the end of a test's output would otherwise cut the report (the sanitizer's message,
# the stack, the input's file and its Base64) out of the middle.
#
# The harness runs with address-space randomization off (setarch -R, where the system allows it): the
# instrumented code includes the standard library's templates, whose paths depend on pointer values
# (ordered maps and sorts of pointers), so with randomization the edge count after the corpus varies by
# a few between runs of one binary and two runs of one seed part after about a thousand executions.
# Without it they agree for ten to twenty thousand (docs/FUZZING.md): a failure early in the suite's
# pass reproduces with the same command; a later one may need the long run.
set -u
log=$(mktemp "${TMPDIR:-/tmp}/vta_fuzz.XXXXXX")
trap 'rm -f "$log"' EXIT
fixed=()
if setarch "$(uname -m)" -R true 2>/dev/null; then fixed=(setarch "$(uname -m)" -R); fi
"${fixed[@]}" "$@" >"$log" 2>&1
rc=$?
cat "$log"
if [ "$rc" -ne 0 ]; then
  echo
  echo "run_harness.sh: $(basename "$1") failed (exit $rc); its report again:"
  # from the first report line to the end, without the progress lines
  sed -n '/ERROR: \|runtime error: \|^SUMMARY: \|deadly signal\|out-of-memory\|timeout after/,$p' "$log" |
    grep -v '^#[0-9]' | head -n 120
fi
exit "$rc"
