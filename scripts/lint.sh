#!/usr/bin/env bash
# Format and lint check: fails on any C++ file that clang-format (.clang-format) would change and on
# any clang-tidy finding of the agreed check set (.clang-tidy). clang-tidy needs a configured build
# tree for the compile commands; it checks every translation unit of that build that is in git.
# Usage: scripts/lint.sh [BUILD_DIR]   (default: build; scripts/test.sh runs it after its build)
#        scripts/lint.sh --fix-format   (rewrite the files in place instead of checking)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mapfile -t sources < <(git ls-files --cached --others --exclude-standard '*.cc' '*.h')

if [ "${1:-}" = "--fix-format" ]; then
  clang-format -i --style=file "${sources[@]}"
  exit 0
fi

echo "== clang-format: ${#sources[@]} files =="
if ! clang-format --dry-run --Werror --style=file "${sources[@]}"; then
  echo "lint: the files above are not formatted; run scripts/lint.sh --fix-format" >&2
  exit 1
fi

build="${1:-$root/build}"
db="$build/compile_commands.json"
if [ ! -f "$db" ]; then
  echo "lint: $db not found: configure a build first (scripts/build.sh $build)" >&2
  exit 1
fi
# the translation units of the build that are ours (generated and third-party files are not checked)
mapfile -t units < <(grep -o '"file": *"[^"]*"' "$db" | sed 's/.*"\([^"]*\)"$/\1/' | sort -u |
                     grep -Fx -f <(git ls-files '*.cc' | sed "s|^|$root/|"))
echo "== clang-tidy: ${#units[@]} translation units (checks in .clang-tidy) =="
if ! printf '%s\n' "${units[@]}" |
     xargs -P "$(nproc)" -n 2 clang-tidy -p "$build" --quiet 2> >(grep -v "warnings\? generated\|^Suppressed\|^Use -header-filter\|NOLINT" >&2); then
  echo "lint: clang-tidy reported the findings above" >&2
  exit 1
fi
echo "lint: clean"
