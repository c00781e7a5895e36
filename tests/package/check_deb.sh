#!/bin/sh
# check_deb.sh BUILD_DIR BACKEND...: `cpack -G DEB` of BUILD_DIR gives a Debian package that dpkg
# installs (into a private root: --instdir/--admindir, the machine is left alone), whose Depends are
# all installed on this machine (so apt would install it), and whose installed tree passes
# check_install.sh.
set -eu
build=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_deb.sh: $*" >&2; exit 1; }

timeout 600 cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/log" 2>&1 ||
  fail "cpack failed: $(cat "$work/log")"
deb=$(find "$work/out" -maxdepth 1 -name 'vta_*.deb' | head -n 1)
[ -n "$deb" ] || fail "cpack made no vta_*.deb: $(cat "$work/log")"
[ "$(dpkg-deb -f "$deb" Package)" = vta ] || fail "package name"
depends=$(dpkg-deb -f "$deb" Depends)
echo "$depends" | grep -q "libsystemc\|libssl" || fail "Depends lacks the shared libraries libvta uses: $depends"
for dep in $(echo "$depends" | sed 's/([^)]*)//g; s/,/ /g'); do
  dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q "install ok installed" ||
    fail "Depends names $dep, which is not installed here"
done
mkdir -p "$work/root" "$work/admin/updates" "$work/admin/info"
: >"$work/admin/status"
# --force-depends: the private database does not list the (checked above) dependencies
dpkg --instdir="$work/root" --admindir="$work/admin" --force-depends --force-not-root --force-script-chrootless \
  -i "$deb" >"$work/log" 2>&1 || fail "dpkg -i failed: $(cat "$work/log")"
[ -f "$work/root/usr/bin/vta" ] || fail "the package installs no /usr/bin/vta"
"$here/check_install.sh" "$work/root/usr" "$@"
echo "check_deb.sh: $(basename "$deb") ($(stat -c %s "$deb") bytes) installs and works"
