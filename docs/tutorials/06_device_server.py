"""
Running on a device server
==========================

A VTA device is often not where the program is built: a board on the lab's network, a cycle-accurate
simulator on a bigger machine. ``vta-device-server`` serves a backend (fsim, tsim) over TCP; a client
uploads a built module, puts its arrays in the server's memory, calls it there and reads the results
and statistics back. This tutorial starts a server in the background, as you would on the device's
machine, and drives it from Python.
"""

# %%
# Start a server
# --------------
# ``--port 0`` picks a free port and prints the address. On a machine of your own you would run
# ``vta-device-server --target tsim --port 9091`` in a shell; the token file option adds a shared
# secret, which a server listening beyond the loopback requires.
import atexit
import os
import re
import subprocess
import tempfile
import time

import numpy as np

import vta
import vector_add

server_exe = os.path.join(os.environ.get("VTA_BUILD_DIR", "build"), "tools", "vta-device-server")
server = subprocess.Popen([server_exe, "--target", "tsim", "--port", "0"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
atexit.register(server.kill)  # (should anything below fail, the server does not outlive this process)
address = None
deadline = time.monotonic() + 30
while address is None and time.monotonic() < deadline:
    line = server.stdout.readline()
    print(line.rstrip())
    m = re.search(r" on (127\.0\.0\.1):(\d+)$", line)
    if m:
        address = (m.group(1), int(m.group(2)))
assert address, "the server printed no address"

# %%
# Build a module here
# -------------------
# (To run this script yourself, put :download:`vector_add.py <../../tutorials/vector_add.py>` beside it.)
#
# The vector add of *Getting started*, saved as a module file: the file is what travels.
env = vta.get_env()
module, shape = vector_add.build(env)  # (vector_add.py: the module of Getting started)
path = os.path.join(tempfile.mkdtemp(), "vector_add.vtam")
module.save(path)

# %%
# Run it on the server
# --------------------
# ``vta.connect`` opens a session; every wait in it is bounded by ``timeout`` seconds. The session's
# arrays live in the server's memory until the session ends.
remote = vta.connect(*address, timeout=30)
print("connected to", remote.where, "serving", remote.target)
remote.upload(path)
f = remote.load_module("vector_add.vtam")
print("arguments:", f.arg_names)
rng = np.random.default_rng(2)
a = rng.integers(-128, 128, size=shape, dtype=np.int32)
b = rng.integers(-128, 128, size=shape, dtype=np.int32)
a_dev, b_dev, c_dev = remote.array(a), remote.array(b), remote.empty(shape, "int8")
remote.clear_stats()
f(a_dev, b_dev, c_dev)
assert (c_dev.numpy() == (a + b).astype(np.int8)).all()
print("verified against NumPy;", remote.stats())

# %%
# Mistakes end the call, not the session
# --------------------------------------
# An array of the wrong shape is refused before anything is sent (``ValueError`` naming the argument);
# a call the server cannot complete (a device error, a timeout) raises ``CallError``. Either way the
# session goes on.
try:
    f(a_dev, b_dev, remote.empty((1, 8, env.BATCH, env.BLOCK_OUT), "int8"))
except ValueError as e:
    print("ValueError:", e)
f(a_dev, b_dev, c_dev)
print("the next call ran;", remote.round_trips, "round trips in this session")

# %%
# Stop the server
# ---------------
# SIGTERM ends it cleanly: it closes its sessions and frees their memory.
del remote
server.terminate()
print("the server exited with", server.wait(timeout=30))
