"""
Matrix multiply, blocked for VTA's buffers
==========================================

The first seed tutorial's computation written with the ``vta`` package's own API: a 1024 x 1024
fully connected layer on 8-bit integers, its products accumulated in 32 bits, shifted, clipped and
narrowed back to 8 bits. The output is blocked so that each block's inputs, weights and accumulators
fit VTA's buffers, the GEMM core takes the innermost tiles, and the ALU the shift and the clip. The
page shows the default schedule's loop nest, the blocked one, the final program, a verified run with
the seed's statistics, and the estimated timeline of what the three stages do.
"""

# %%
# Declare the layer
# -----------------
# The tensors are tiled as VTA holds them: ``(batch / BATCH, channels / BLOCK, BATCH, BLOCK)``.
import os

import numpy as np

import vta

env = vta.get_env()
batch, in_channels, out_channels = 1, 1024, 1024
data_shape = (batch // env.BATCH, in_channels // env.BLOCK_IN, env.BATCH, env.BLOCK_IN)
weight_shape = (out_channels // env.BLOCK_OUT, in_channels // env.BLOCK_IN, env.BLOCK_OUT, env.BLOCK_IN)
output_shape = (batch // env.BATCH, out_channels // env.BLOCK_OUT, env.BATCH, env.BLOCK_OUT)

ic = vta.reduce_axis((0, in_channels // env.BLOCK_IN), name="ic")
ic_tns = vta.reduce_axis((0, env.BLOCK_IN), name="ic_tns")
data = vta.placeholder(data_shape, name="data", dtype=env.inp_dtype)
weight = vta.placeholder(weight_shape, name="weight", dtype=env.wgt_dtype)
data_buf = vta.compute(data_shape, lambda *i: data(*i), "data_buf")
weight_buf = vta.compute(weight_shape, lambda *i: weight(*i), "weight_buf")
res_gem = vta.compute(
    output_shape,
    lambda bo, co, bi, ci: vta.sum(
        data_buf[bo, ic, bi, ic_tns].astype(env.acc_dtype) * weight_buf[co, ic, ci, ic_tns].astype(env.acc_dtype),
        axis=[ic, ic_tns]),
    name="res_gem")
res_shr = vta.compute(output_shape, lambda *i: res_gem(*i) >> env.INP_WIDTH, name="res_shr")
inp_max = (1 << (env.INP_WIDTH - 1)) - 1
res_max = vta.compute(output_shape, lambda *i: vta.max(res_shr(*i), 0), "res_max")
res_min = vta.compute(output_shape, lambda *i: vta.min(res_max(*i), inp_max), "res_min")
res = vta.compute(output_shape, lambda *i: res_min(*i).astype(env.inp_dtype), name="res")
args = [data, weight, res]

# %%
# The default schedule
# --------------------
# One loop nest per stage, nothing on the accelerator yet.
s = vta.create_schedule(res)
print(vta.lower(s, args, passes="loops"))

# %%
# Blocking
# --------
# Each block of 256 output channels is computed whole before the next (``compute_at``), and its
# reduction is split in blocks of 256 input channels, so that the block's inputs, weights and
# accumulators fit the buffers.
b, oc, b_tns, oc_tns = s[res].op.axis
b_out, b_inn = s[res].split(b, 1 // env.BATCH)
oc_out, oc_inn = s[res].split(oc, 256 // env.BLOCK_OUT)
s[res].reorder(b_out, oc_out, b_inn, oc_inn)
for t in (res_gem, res_shr, res_max, res_min):
    s[t].compute_at(s[res], oc_out)
b_inn, oc_inn, b_tns, oc_tns = s[res_gem].op.axis
ic_out, ic_inn = s[res_gem].split(ic, 256 // env.BLOCK_IN)
s[res_gem].reorder(ic_out, b_inn, oc_inn, ic_inn, b_tns, oc_tns, ic_tns)
print(vta.lower(s, args, passes="loops"))

# %%
# Onto the buffers and units
# --------------------------
# The copies go to the input, weight and accumulator buffers by DMA, the innermost tiles to the GEMM
# core (``tensorize``), the shift and the clip to the ALU. The result is the final program: runtime
# calls, micro-op kernels and dependency tokens.
s[data_buf].set_scope(env.inp_scope)
s[weight_buf].set_scope(env.wgt_scope)
for t in (res_gem, res_shr, res_max, res_min):
    s[t].set_scope(env.acc_scope)
s[data_buf].compute_at(s[res_gem], ic_out)
s[weight_buf].compute_at(s[res_gem], ic_out)
s[data_buf].pragma(s[data_buf].op.axis[0], env.dma_copy)
s[weight_buf].pragma(s[weight_buf].op.axis[0], env.dma_copy)
s[res].pragma(s[res].op.axis[2], env.dma_copy)
s[res_gem].tensorize(b_tns, env.gemm)
for t in (res_shr, res_min, res_max):
    s[t].pragma(s[t].op.axis[0], env.alu)
print(vta.lower(s, args))

# %%
# Run and verify
# --------------
# The result against NumPy's, and the statistics: the seed's tutorial printed the same seven
# counters (1,048,576 weight bytes, 4,096 GEMM micro-ops).
f = vta.build(s, args)
rng = np.random.default_rng(0)
a = rng.integers(-128, 128, size=data_shape, dtype=np.int8)
w = rng.integers(-128, 128, size=weight_shape, dtype=np.int8)
out = vta.array(np.zeros(output_shape, np.int8))
vta.clear_stats()
f(vta.array(a), vta.array(w), out)

a2 = a.transpose(0, 2, 1, 3).reshape(batch, in_channels).astype(np.int32)
w2 = w.transpose(0, 2, 1, 3).reshape(out_channels, in_channels).astype(np.int32)
expected = np.clip((a2 @ w2.T) >> env.INP_WIDTH, 0, inp_max).astype(np.int8)
expected = expected.reshape(batch // env.BATCH, env.BATCH, out_channels // env.BLOCK_OUT, env.BLOCK_OUT)
assert (out.numpy() == expected.transpose(0, 2, 1, 3)).all()
print("verified against NumPy")
for name, value in vta.stats().items():
    print(f"{name:16} {value}")

# %%
# What the stages do
# ------------------
# ``vta.estimate_cycles`` estimates the module's cycles from its program (within a few percent of the
# tsim on these programs); ``vta.estimate_timelines`` lays out what the load, compute and store stages do
# over time. With a single block in flight the stages mostly wait on each other: the second seed's
# virtual threads (the convolution tutorial) overlap them.
print("estimated cycles:", vta.estimate_cycles(f))
timelines = vta.estimate_timelines(f)
for t in timelines:
    print(t.cycles, "cycles;", ", ".join(f"{lane} busy {100 * t.busy(lane) / t.cycles:.0f} %"
                                                for lane in ("load", "compute", "store")))
os.makedirs("../generated/tutorials", exist_ok=True)
with open("../generated/tutorials/matrix_multiply_timeline.svg", "w") as svg:
    svg.write(vta.timelines_to_svg(timelines, 1000))

# %%
# .. image:: matrix_multiply_timeline.svg
#    :alt: the estimated timeline of the blocked matrix multiply
