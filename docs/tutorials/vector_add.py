"""The vector add of the tutorial "Getting started" (01_getting_started.py explains each line), for the
tutorials that run it again: a helper of the gallery, not a page of it (docs/conf.py ignores it)."""

import vta


def declare(env, m=16):
    """A + B on two int32 vectors of m x BLOCK_OUT values, the sum narrowed to int8: (A, B, A_buf, B_buf,
    C_buf, C), the inputs, their copies in the accumulator buffer, the sum there, the output."""
    shape = (1, m, env.BATCH, env.BLOCK_OUT)
    A = vta.placeholder(shape, name="A", dtype=env.acc_dtype)
    B = vta.placeholder(shape, name="B", dtype=env.acc_dtype)
    A_buf = vta.compute(shape, lambda *i: A(*i), "A_buf")
    B_buf = vta.compute(shape, lambda *i: B(*i), "B_buf")
    C_buf = vta.compute(shape, lambda *i: A_buf(*i) + B_buf(*i), "C_buf")
    C = vta.compute(shape, lambda *i: C_buf(*i).astype(env.inp_dtype), "C")
    return A, B, A_buf, B_buf, C_buf, C


def schedule(env, A_buf, B_buf, C_buf, C):
    """The schedule onto VTA: the copies and the sum in the accumulator buffer, the copies by DMA, the
    add on the ALU, the output stored by DMA."""
    s = vta.create_schedule(C)
    for t in (A_buf, B_buf, C_buf):
        s[t].set_scope(env.acc_scope)
    s[A_buf].pragma(s[A_buf].op.axis[0], env.dma_copy)
    s[B_buf].pragma(s[B_buf].op.axis[0], env.dma_copy)
    s[C_buf].pragma(s[C_buf].op.axis[0], env.alu)
    s[C].pragma(s[C].op.axis[0], env.dma_copy)
    return s


def build(env):
    """The built module and the vectors' shape."""
    A, B, A_buf, B_buf, C_buf, C = declare(env)
    return vta.build(schedule(env, A_buf, B_buf, C_buf, C), [A, B, C]), A.shape
