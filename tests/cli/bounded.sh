# Sourced by the command-line tests (. "$(dirname "$0")/bounded.sh"): their scratch folder, how they
# fail and how they wait. Every wait has a bound.

# scratch_dir: a new folder in $dir, removed when the test exits, after the test's own `cleanup`
# (a function it may define first: processes to stop)
scratch_dir() {
  dir=$(mktemp -d)
  trap 'if command -v cleanup >/dev/null; then cleanup || :; fi; rm -rf "$dir"' EXIT
}

# fail MESSAGE: the test's name and MESSAGE on stderr, exit status 1
fail() { echo "${0##*/}: $*" >&2; exit 1; }

# wait_for CONDITION SECONDS MESSAGE: evaluates CONDITION (a shell command) every 0.1 s until it holds;
# fails with MESSAGE once SECONDS have passed. MESSAGE is expanded when it fails (single-quote it to
# show, say, $(cat out) as it is then).
wait_for() {
  _polls=0
  until eval "$1"; do
    _polls=$((_polls + 1))
    [ "$_polls" -lt "$(($2 * 10))" ] || fail "$(eval "echo \"$3\"")"
    sleep 0.1
  done
}
