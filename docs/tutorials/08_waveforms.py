"""
Debugging a run in GTKWave
==========================

When a program hangs or computes the wrong thing on the RTL, the waveform says why. The tsim writes
one on request (``VTA_WAVE``: FST, or VCD), and beside it a GTKWave save file that opens on a ready
view: each stage's instruction disassembled, the state machines and the compute unit by name, the
memory port's requests by client. This tutorial records the vector add of *Getting started* and opens
its view in GTKWave, here on a virtual display so that the picture below is the one GTKWave drew while
this page was built.
"""

# %%
# Record a waveform
# -----------------
# (To run this script yourself, put :download:`vector_add.py <../../tutorials/vector_add.py>` beside it.)
#
# ``VTA_WAVE`` is read when a tsim device is made: here, the session's. (From a shell:
# ``VTA_WAVE=add.fst ./build/tools/vta run add.vtam --target tsim``; ``VTA_WAVE_START`` and
# ``VTA_WAVE_STOP`` limit the dump to a window of cycles, for long runs.)
import os
import subprocess
import tempfile

import matplotlib.pyplot as plt
import numpy as np

import vta
import vector_add

work = tempfile.mkdtemp()
env = vta.get_env()
built, shape = vector_add.build(env)  # (vector_add.py: the module of Getting started)
module = os.path.join(work, "add.vtam")
built.save(module)

# (the session's device is made on the server's thread when the session opens: VTA_WAVE stays set until
# the session has ended)
os.environ["VTA_WAVE"] = os.path.join(work, "add.fst")
tsim = vta.local_session("tsim")
tsim.upload(module)
f = tsim.load_module("add.vtam")
a = np.arange(256, dtype=np.int32).reshape(shape)
f(tsim.array(a), tsim.array(a), tsim.empty(shape, "int8"))
print(tsim.stats())
del f, tsim  # the session ends: the waveform is complete
del os.environ["VTA_WAVE"]
print(sorted(os.listdir(work)))

# %%
# The view the tsim prepared
# --------------------------
# ``add.gtkw`` is a GTKWave save file: the dump, the time window, and the signals in groups, with
# GTKWave's translate filter turning each 128-bit instruction into its disassembly. Open it with
# ``gtkwave add.gtkw``.
with open(os.path.join(work, "add.gtkw")) as save:
    lines = save.read().splitlines()
print("\n".join(line for line in lines if line.startswith("[*]")))
groups, group = {}, None
for line in lines:
    if line.startswith("-"):
        group = None if group == line[1:] else line[1:]  # a group's name opens and closes it
    elif line.startswith("TOP.") and group:
        groups.setdefault(group, []).append(line.split(".")[-1])
for name, signals in groups.items():
    print(f"{name:22} {', '.join(signals[:6])}{', ...' if len(signals) > 6 else ''} ({len(signals)} signals)")

# %%
# What GTKWave shows
# ------------------
# ``scripts/gtkwave_view.sh`` opens the save file in GTKWave on a virtual X display, waits until the view
# has loaded, reads back what the signal pane shows for the signals named, and saves the screen. The
# compute and store stages' instructions and the compute unit, as GTKWave displays them across the run:
core = "TOP.vta_top.u_core"
shown = os.path.join(work, "view")
subprocess.run([os.path.join(os.environ.get("VTA_SOURCE_DIR", "."), "scripts", "gtkwave_view.sh"),
                os.path.join(work, "add.gtkw"), shown, f"{core}.co_insn[127:0]", f"{core}.st_insn[127:0]",
                f"{core}.u_compute.unit_q[2:0]"],
               check=True, timeout=240)
seen = []
with open(os.path.join(shown, "probe.txt")) as probe:
    for line in probe:
        value = line.split(" = ", 1)[1].strip() if " = " in line else None
        if line.startswith("value") and value not in seen and value.strip("0"):  # (not before the first)
            seen.append(value)
print("\n".join(seen))

# %%
# And the screen GTKWave drew:
fig = plt.figure(figsize=(12, 6.75))
plt.imshow(plt.imread(os.path.join(shown, "screen.png")))
plt.axis("off")
fig.tight_layout()
