#!/usr/bin/env python3
"""Evaluates the final lowered program of a tutorial seed loop by loop into a runtime call trace.

The seeds (../shared/seeds/) print the tutorials' final lowered TIR: nested `for` loops, `let`
bindings, DMA calls, micro-op kernels and dependency-token pushes and pops. This script walks that
listing, evaluates every loop and index expression, and prints one runtime call per line in the format
of VTA_TRACE_CALLS, so that the trace of our hand-written programs can be compared with the seed
itself. It generated tests/golden/*.trace:

    scripts/seed_trace.py ../shared/seeds/001_a10a822ed639717a.txt > tests/golden/matrix_multiply.trace
    scripts/seed_trace.py ../shared/seeds/002_c25605e728a583c7.text.txt > tests/golden/convolution.trace
"""

import re
import sys

FOR_RE = re.compile(r"^for \(([\w.]+): int32, (.+), (.+)\) \{$")
LET_RE = re.compile(r"^let ([\w.]+): int32 = (.+)$")
UOP_SCOPE_RE = re.compile(r'"coproc_uop_scope" = "(VTAPush(?:GEMM|ALU)Op)" \{$')
DOTTED_RE = re.compile(r"\b([A-Za-z_]\w*)\.(\w+)\b")


def sanitize(expr):
    return DOTTED_RE.sub(r"\1_\2", expr)


def evaluate(expr, env):
    return int(eval(sanitize(expr), {"__builtins__": {}, "max": max, "min": min}, env))  # noqa: S307


def split_args(text):
    """Splits a call's argument text at top-level commas."""
    args, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
    args.append(text[start:].strip())
    return [a for a in args if a and not a.startswith("dtype=")]


def call_args(line):
    """The argument list of the outermost call on the line."""
    inner = line[line.index("(") + 1 : line.rindex(")")]
    return split_args(inner)


def parse_block(lines, i):
    """Parses statements until the closing brace of the current block; returns (nodes, next index)."""
    nodes = []
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line:
            continue
        if line == "}":
            return nodes, i
        m = FOR_RE.match(line)
        if m:
            body, i = parse_block(lines, i)
            nodes.append(("for", m.group(1).replace(".", "_"), m.group(2), m.group(3), body))
            continue
        m = LET_RE.match(line)
        if m:
            nodes.append(("let", m.group(1).replace(".", "_"), m.group(2)))
            continue
        if line.endswith("{"):
            body, i = parse_block(lines, i)
            m = UOP_SCOPE_RE.search(line)
            nodes.append(("kernel", m.group(1), body) if m else ("block", body))
            continue
        nodes.append(("stmt", line))
    return nodes, i


def buffer_name(arg):
    return re.sub(r"_\d+$", "", arg)


def run(nodes, env, out, kernel=None):
    env = dict(env)
    for node in nodes:
        kind = node[0]
        if kind == "for":
            _, var, lo, extent, body = node
            start = evaluate(lo, env)
            for v in range(start, start + evaluate(extent, env)):
                run(body, {**env, var: v}, out, kernel)
        elif kind == "let":
            env[node[1]] = evaluate(node[2], env)
        elif kind == "block":
            run(node[1], env, out, kernel)
        elif kind == "kernel":
            ops = []
            run(node[2], env, ops, kernel=ops)
            out.append("%s { %s }" % (node[1], "; ".join(ops)))
        else:
            statement(node[1], env, out, kernel)


def statement(line, env, out, kernel):
    def ints(args):
        return ", ".join(str(evaluate(a, env)) for a in args)

    if line.startswith("@tir.vta.coproc_dep_push"):
        out.append("VTADepPush(%s)" % ints(call_args(line)))
    elif line.startswith("@tir.vta.coproc_dep_pop"):
        out.append("VTADepPop(%s)" % ints(call_args(line)))
    elif line.startswith("@tir.vta.coproc_sync"):
        out.append("VTASynchronize()")
    elif line.startswith("@tir.vta.uop_push"):
        kernel.append("VTAUopPush(%s)" % ints(call_args(line)))
    elif line.startswith("@tir.call_extern("):
        args = call_args(line)
        name = args[0].strip('"')
        rest = args[1:]
        if name == "VTAUopLoopBegin":
            kernel.append("VTAUopLoopBegin(%s)" % ints(rest))
        elif name == "VTAUopLoopEnd":
            kernel.append("VTAUopLoopEnd()")
        elif name == "VTALoadBuffer2D":  # (cmd, buffer, offset, x, y, stride, pads..., sram, type)
            out.append("VTALoadBuffer2D(%s, %s)" % (buffer_name(rest[1]), ints(rest[2:])))
        elif name == "VTAStoreBuffer2D":  # (cmd, sram, type, buffer, offset, x, y, stride)
            out.append(
                "VTAStoreBuffer2D(%s, %s, %s)" % (ints(rest[1:3]), buffer_name(rest[3]), ints(rest[4:]))
            )
        else:
            raise SystemExit("unknown extern call %s in: %s" % (name, line))
    elif line.startswith("attr ") or line.startswith("@tir.vta.coproc"):
        pass
    else:
        raise SystemExit("cannot evaluate: %s" % line)


def final_listing(text):
    """Lines of the last lowered program in the seed that contains DMA calls."""
    lines = text.splitlines()
    last_dma = max(i for i, l in enumerate(lines) if "VTALoadBuffer2D" in l and "call_extern" in l)
    start = max(i for i, l in enumerate(lines[:last_dma]) if "primfn(" in l)
    # The body starts after the header line that ends with "{".
    while not lines[start].rstrip().endswith("{"):
        start += 1
    return lines[start + 1 :]


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: seed_trace.py SEED_FILE")
    with open(sys.argv[1], encoding="utf-8") as f:
        body = final_listing(f.read())
    nodes, _ = parse_block(body, 0)
    out = []
    run(nodes, {}, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
