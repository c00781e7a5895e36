"""
Getting started: a vector add on VTA
====================================

The smallest program VTA runs: two vectors of 32-bit integers loaded into the accumulator buffer,
added by the vector ALU, the sum stored as 8-bit integers. It shows the four steps every VTA program
takes in the ``vta`` package: declare the computation, schedule it onto the accelerator's buffers and
units, build it, run it on a backend.
"""

# %%
# The configuration
# -----------------
# ``vta.get_env()`` is the hardware configuration this package was built for
# (``config/vta_config.json``): the GEMM core's block, the buffers' sizes, the data types.
import numpy as np

import vta

env = vta.get_env()
print(env)

# %%
# Declare the computation
# -----------------------
# (To run this script yourself, put :download:`vector_add.py <../../tutorials/vector_add.py>` beside it.)
#
# VTA's tensors are tiled: an accumulator vector holds ``BATCH x BLOCK_OUT`` values, so a vector of
# 256 values is 16 tiles of 16. ``A_buf`` and ``B_buf`` are the copies in the accumulator buffer,
# ``C_buf`` their sum there, ``C`` the result narrowed to the input type and stored. (The
# declaration and the schedule are functions of ``vector_add.py`` beside this tutorial, which the
# later tutorials call to build the same module.)
#
# .. literalinclude:: ../../tutorials/vector_add.py
#    :pyobject: declare
import vector_add

A, B, A_buf, B_buf, C_buf, C = vector_add.declare(env)
shape = A.shape

# %%
# Schedule it onto VTA
# --------------------
# Each intermediate tensor goes to a buffer (``set_scope``); copies between DRAM and a buffer become
# DMA instructions (``dma_copy``), the add becomes ALU micro-ops (``alu``).
#
# .. literalinclude:: ../../tutorials/vector_add.py
#    :pyobject: schedule
s = vector_add.schedule(env, A_buf, B_buf, C_buf, C)

# %%
# The program the compiler makes: two loads into the accumulator buffer, one ALU loop of 16 micro-op
# iterations, a dependency token from the compute stage to the store stage, one store.
print(vta.lower(s, [A, B, C]))

# %%
# Build and run
# -------------
# ``vta.build`` compiles the schedule into a module; calling it runs the program on the backend
# ``VTA_TARGET`` names (the fsim when unset). The result is checked against NumPy.
f = vta.build(s, [A, B, C])
rng = np.random.default_rng(1)
a = rng.integers(-128, 128, size=shape, dtype=np.int32)
b = rng.integers(-128, 128, size=shape, dtype=np.int32)
c = vta.array(np.zeros(shape, np.int8))
vta.clear_stats()
f(vta.array(a), vta.array(b), c)
assert (c.numpy() == (a + b).astype(np.int8)).all()
print("verified against NumPy")
print(vta.stats())

# %%
# Every run counts the bytes each buffer loaded and stored and the micro-ops each unit executed;
# ``vta.energy()`` prices them with the 45 nm energy table (the fsim counts no cycles, so there is no
# idle energy and no power).
print(vta.energy())

# %%
# The same module, cycle by cycle
# -------------------------------
# The tsim is the RTL compiled by Verilator. ``vta.local_session("tsim")`` opens a device of that
# backend in this process; the module file made by ``save`` runs there unchanged, with the same
# result and statistics, and now the cycles too.
import os
import tempfile

path = os.path.join(tempfile.mkdtemp(), "vector_add.vtam")
f.save(path)
tsim = vta.local_session("tsim")
tsim.upload(path)
g = tsim.load_module("vector_add.vtam")
a_dev, b_dev = tsim.array(a), tsim.array(b)
c_dev = tsim.empty(shape, "int8")
g(a_dev, b_dev, c_dev)
assert (c_dev.numpy() == c.numpy()).all()
print(tsim.stats())
