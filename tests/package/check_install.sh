#!/bin/sh
# check_install.sh PREFIX BACKEND... (or --install BUILD_DIR BACKEND...): an installed VTA under
# PREFIX works from outside this tree: a program configured with find_package(vta) and one compiled with pkg-config's flags both build, list
# every BACKEND as registered by libvta, and run an ALU program right on each backend; the installed
# vta command runs. Every step bounded (timeout). --install: `cmake --install BUILD_DIR` into a
# temporary prefix first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_install.sh: $*" >&2; exit 1; }
if [ "$1" = --install ]; then
  timeout 300 cmake --install "$2" --prefix "$work/prefix" >"$work/log" 2>&1 || fail "cmake --install: $(cat "$work/log")"
  prefix=$work/prefix
  shift 2
else
  prefix=$(cd "$1" && pwd)
  shift
fi
libdir=$(dirname "$(find "$prefix" -name 'libvta.so' | head -n 1)")
[ -n "$libdir" ] || fail "no libvta.so under $prefix"
# (no LD_LIBRARY_PATH: the programs find libvta by their run paths, pkg-config's -Wl,-rpath and CMake's)

# the CMake way: find_package(vta), imported target vta::vta
timeout 300 cmake -S "$here/consumer" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$work/log" 2>&1 ||
  fail "configuring with find_package(vta) failed: $(cat "$work/log")"
timeout 300 cmake --build "$work/cmake" >"$work/log" 2>&1 || fail "building with vta::vta failed: $(cat "$work/log")"

# the pkg-config way
pc=$(dirname "$(find "$prefix" -name vta.pc | head -n 1)")
[ -n "$pc" ] || fail "no vta.pc under $prefix"
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs vta) || fail "pkg-config does not know vta"
# shellcheck disable=SC2086
timeout 300 c++ -std=c++20 "$here/consumer/main.cc" -o "$work/consumer-pc" $flags >"$work/log" 2>&1 ||
  fail "building with pkg-config's flags ($flags) failed: $(cat "$work/log")"

# the reference's bare-metal entry point vta() (vta/reference_shim.h) is in libvta too
# shellcheck disable=SC2086
timeout 300 c++ -std=c++20 "$here/consumer/shim.cc" -o "$work/shim-pc" $flags >"$work/log" 2>&1 ||
  fail "building the reference shim's consumer with pkg-config's flags failed: $(cat "$work/log")"
VTA_TARGET=fsim timeout 60 "$work/shim-pc" >"$work/out" 2>&1 && grep -q "^shim: vta() ran" "$work/out" ||
  fail "the reference shim's consumer: $(cat "$work/out")"

# a model of the user's own: the installed classifier imported, quantized and run through libvta
model=$(find "$prefix" -path '*/models/fashion_mnist/cnn.onnx' | head -n 1)
[ -n "$model" ] || fail "no models/fashion_mnist/cnn.onnx under $prefix"
# shellcheck disable=SC2086
timeout 300 c++ -std=c++20 "$here/consumer/onnx.cc" -o "$work/onnx-pc" $flags >"$work/log" 2>&1 ||
  fail "building the ONNX consumer with pkg-config's flags failed: $(cat "$work/log")"
VTA_TARGET=fsim timeout 120 "$work/onnx-pc" "$model" >"$work/out" 2>&1 && grep -q "^onnx: .* verified" "$work/out" ||
  fail "the ONNX consumer: $(cat "$work/out")"
onnx_tool=$(find "$prefix" -path '*/bin/vta-onnx' | head -n 1)
[ -n "$onnx_tool" ] || fail "no vta-onnx command under $prefix"
timeout 120 "$onnx_tool" "$model" --calibration random:2 --target fsim >"$work/out" 2>&1 && grep -q "^verified" "$work/out" ||
  fail "the installed vta-onnx: $(cat "$work/out")"

for exe in "$work/cmake/consumer" "$work/consumer-pc"; do
  for backend in "$@"; do
    VTA_TARGET=$backend timeout 120 "$exe" "$@" >"$work/out" 2>&1 || fail "$exe on $backend: $(cat "$work/out")"
    grep -q "^$backend: .* outputs right" "$work/out" ||
      fail "$exe on $backend: $(cat "$work/out")"
  done
done
# the Python package and the TVM compatibility packages (when the build has them: VTA_CHECK_PYTHON=1),
# imported by Debian's python3 from the prefix: an ALU program built and run on every backend
alu_program="
import numpy as np, sys, vta
env = vta.get_env()
a = vta.placeholder((1, 1, env.BATCH, env.BLOCK_OUT), 'a', 'int32')
a_buf = vta.compute(a.shape, lambda *i: a(*i), 'a_buf')
m = vta.compute(a.shape, lambda *i: vta.max(a_buf(*i), 0), 'm')
r = vta.compute(a.shape, lambda *i: m(*i).astype('int8'), 'r')
s = vta.create_schedule(r)
for t in (a_buf, m):
    s[t].set_scope(env.acc_scope)
s[a_buf].pragma(s[a_buf].op.axis[0], env.dma_copy)
s[m].pragma(s[m].op.axis[0], env.alu)
s[r].pragma(s[r].op.axis[0], env.dma_copy)
x = np.arange(-8, 8, dtype=np.int32).reshape(a.shape)
out = vta.array(np.zeros(a.shape, np.int8))
vta.build(s, [a, r])(vta.array(x), out)
assert (out.numpy() == np.maximum(x, 0)).all(), out.numpy()
print('python: ' + sys.argv[1] + ' ran')
"
compat_imports="
import tvm, tvm.testing
from tvm import te, rpc, topi
from tvm.contrib import utils
from tvm.topi.testing import conv2d_nchw_python
from vta.testing import simulator
assert tvm.runtime.enabled('rpc') and rpc.LocalSession().ext_dev(0) is not None
"
if [ "${VTA_CHECK_PYTHON:-0}" = 1 ]; then
  pydir=$(dirname "$(find "$prefix" -path '*/dist-packages/vta/__init__.py' | head -n 1)")
  [ "$pydir" != . ] || fail "no Python package vta under $prefix"
  for backend in "$@"; do
    VTA_TARGET=$backend PYTHONPATH=$(dirname "$pydir") timeout 120 /usr/bin/python3 -c "$alu_program" "$backend" \
      >"$work/out" 2>&1 || fail "python3 import vta on $backend: $(cat "$work/out")"
  done
  compat=$(find "$prefix" -type d -path '*/python-compat' | head -n 1)
  [ -n "$compat" ] || fail "no python-compat directory under $prefix"
  PYTHONPATH="$compat:$(dirname "$pydir")" timeout 60 /usr/bin/python3 -c "$compat_imports" >"$work/out" 2>&1 ||
    fail "the installed TVM compatibility packages: $(cat "$work/out")"
fi
vta=$(find "$prefix" -path '*/bin/vta' | head -n 1)
[ -n "$vta" ] || fail "no vta command under $prefix"
timeout 60 "$vta" config check "$(find "$prefix" -name vta_config.json | head -n 1)" >/dev/null || fail "installed vta"
echo "check_install.sh: find_package, pkg-config and Python programs run on $* from $prefix"
