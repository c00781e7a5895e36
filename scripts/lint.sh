#!/usr/bin/env bash
# Format and lint check: fails on any C++ file that clang-format (.clang-format) would change and on
# any clang-tidy finding of the agreed check set (.clang-tidy). clang-tidy needs a configured build
# tree for the compile commands; it checks every translation unit of that build that is in git, except
# those its cache (below) proves clean.
# Usage: scripts/lint.sh [BUILD_DIR]   (default: build; scripts/test.sh runs it after its build)
#        CI=true or VTA_LINT_ALL=1: clang-tidy on every unit (else on the units this checkout changes)
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

# A translation unit clang-tidy found clean is not checked again while everything it reads is the same:
# the key is clang-tidy's version, .clang-tidy, and the unit's compile commands and preprocessed text
# (comments kept: NOLINT), with this checkout's path taken out so that clones share the results.
# VTA_LINT_CACHE=off checks every unit.
cache="${VTA_LINT_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/vta/clang-tidy}"
if [ "$cache" != off ]; then mkdir -p "$cache"; fi
commands="$(mktemp)"
trap 'rm -f "$commands"' EXIT
# file TAB directory TAB command, JSON-unescaped (CMake writes one field per line)
awk -F'"' '
  function unescape(s) { gsub(/\\\\/, "\001", s); gsub(/\\"/, "\"", s); gsub(/\001/, "\\", s); return s }
  /^ *"directory": / { dir = $4 }
  /^ *"command": / { sub(/^ *"command": "/, ""); sub(/",? *$/, ""); cmd = unescape($0) }
  /^ *"file": / { print $4 "\t" dir "\t" cmd }' "$db" >"$commands"
salt="$(clang-tidy --version; git ls-files -z '*.clang-tidy' | xargs -0 cat)"
export root build cache commands salt

check_unit() {  # FILE: 0 when clean (from the cache or checked now)
  local file=$1 key="" dir cmd args pre tmp
  if [ "$cache" != off ]; then
    tmp=$(mktemp)
    key=$( {
      printf '%s\n' "$salt"
      while IFS=$'\t' read -r _ dir cmd; do
        eval "args=($cmd)"
        pre=(clang++ -E -C -Wno-unknown-warning-option)
        local i=1
        while [ $i -lt ${#args[@]} ]; do
          case "${args[$i]}" in
            -o) i=$((i + 2)); continue ;;
            -c) ;;
            *) pre+=("${args[$i]}") ;;
          esac
          i=$((i + 1))
        done
        printf '%s\n' "$cmd" | sed "s|$root||g"
        # a unit clang cannot preprocess gets a key of its own each time: checked, never skipped
        (cd "$dir" && "${pre[@]}" 2>/dev/null) >"$tmp" || echo "unpreprocessed $RANDOM$RANDOM" >"$tmp"
        sed "s|$root||g" "$tmp"
      done < <(awk -F'\t' -v f="$file" '$1 == f' "$commands")
    } | sha256sum | cut -c1-64)
    rm -f "$tmp"
    [ -e "$cache/$key" ] && return 0
  fi
  clang-tidy -p "$build" --quiet "$file" 2> >(grep -v "warnings\? generated\|^Suppressed\|^Use -header-filter\|NOLINT" >&2) ||
    return 1
  if [ -n "$key" ]; then : >"$cache/$key"; fi
}
export -f check_unit

# Outside CI (CI unset or not "true") and unless VTA_LINT_ALL=1, only the units this checkout changes
# are checked when the cache cannot prove them: a unit whose file differs from origin/main (or from
# HEAD without a remote), every unit when a header or .clang-tidy differs. On a fresh clone that is
# none, and the rest (whose cache entries a newcomer's machine does not have yet) is CI's: it checks
# every unit, and its cache makes that a matter of seconds. The count left to CI is printed.
mode=all
if [ "${CI:-}" != true ] && [ "${VTA_LINT_ALL:-0}" != 1 ]; then
  base=$(git merge-base HEAD origin/main 2>/dev/null || git rev-parse HEAD)
  mapfile -t changed < <({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)
  if printf '%s\n' "${changed[@]}" | grep -q -e '\.h$' -e '\.clang-tidy$'; then
    mode=all  # (a header reaches units that did not change themselves)
  else
    mode=changed
    mapfile -t units < <(printf '%s\n' "${units[@]}" |
                         grep -Fx -f <(printf '%s\n' "${changed[@]}" | sed "s|^|$root/|") || true)
    total=$(grep -o '"file": *"[^"]*"' "$db" | sed 's/.*"\([^"]*\)"$/\1/' | sort -u |
            grep -Fxc -f <(git ls-files '*.cc' | sed "s|^|$root/|") || true)
    echo "== clang-tidy: the ${#units[@]} translation units this checkout changes (of $total; CI checks all of" \
         "them, VTA_LINT_ALL=1 does here) =="
  fi
fi
[ "$mode" = all ] && echo "== clang-tidy: ${#units[@]} translation units (checks in .clang-tidy; cache: $cache) =="
if [ ${#units[@]} -gt 0 ] && ! printf '%s\n' "${units[@]}" | xargs -P "$(nproc)" -n 1 bash -c 'check_unit "$0"'; then
  echo "lint: clang-tidy reported the findings above" >&2
  exit 1
fi
echo "lint: clean"
