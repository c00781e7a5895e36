#!/bin/sh
# with_server.sh SERVER BACKEND COMMAND...: starts SERVER (vta-device-server) for BACKEND on an
# ephemeral loopback port, runs COMMAND with VTA_TARGET=rpc://127.0.0.1:PORT (every @RPC@ in its
# arguments replaced by that target, every @ADDR@ by 127.0.0.1:PORT, every @PORT@ by PORT), stops the server and exits
# with COMMAND's status. Every wait is
# bounded: the server has 30 s to print its address.
set -u
server=$1 backend=$2
shift 2
log=$(mktemp)
"$server" --target "$backend" --port 0 --idle-timeout 600000 >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$log"' EXIT
addr=
i=0
while [ $i -lt 300 ]; do
  addr=$(sed -n 's/.* on \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$log")
  [ -n "$addr" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "with_server.sh: the server exited:" >&2; cat "$log" >&2; exit 1; }
  sleep 0.1
  i=$((i + 1))
done
[ -n "$addr" ] || { echo "with_server.sh: the server printed no address within 30 s" >&2; exit 1; }
target="rpc://$addr"
export VTA_TARGET="$target"
cmd=$1
shift
for a in "$@"; do
  [ "$a" = "@RPC@" ] && a=$target
  [ "$a" = "@ADDR@" ] && a=$addr
  case $a in *@PORT@*) a=$(printf '%s' "$a" | sed "s/@PORT@/${addr##*:}/g") ;; esac
  set -- "$@" "$a"
  shift
done
"$cmd" "$@"
