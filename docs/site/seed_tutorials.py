#!/usr/bin/python3
"""Writes the seeds' tutorials as Sphinx-Gallery pages (scripts/docs.sh runs it).

The seeds are the two TVM tutorial pages this project was made from; their Python code, unchanged, is
tests/python/tutorials/*.py (scripts/seed_code.py extracted it; ctest Python.Tutorial.* runs it). A page
is that code as it is, comments included, under a title and an introduction of ours, cut into cells
before each comment that starts a paragraph, so each printed program and table shows under the code that
printed it.

    seed_tutorials.py SOURCE_DIR OUT_DIR
"""
import ast
import os
import sys

# seed file -> (page file, title, introduction in reStructuredText)
PAGES = {
    "matrix_multiply_opt.py": (
        "03_seed_matrix_multiply.py",
        "The first seed: matrix multiply blocking, through the TVM packages",
        """TVM's VTA tutorial "Matrix Multiply Blocking", its Python code exactly as the tutorial wrote it
(its comments are those of the translated page this project was made from). It imports ``tvm`` and
``vta``: the ``tvm`` it gets is this project's compatibility package, which forwards each call to the
``vta`` package, so the tutorial's schedule compiles to the same program as the C++ tutorial and runs
on this site's backend. The statistics it prints at the end are the seed's own numbers.

The same layer in the ``vta`` package's own API is the tutorial "Matrix multiply, blocked for VTA's
buffers".""",
    ),
    "convolution_opt.py": (
        "04_seed_convolution.py",
        "The second seed: 2D convolution with virtual threads, through the TVM packages",
        """TVM's VTA tutorial "2D Convolution Optimization", its Python code exactly as the tutorial wrote it:
a ResNet-18 convolution (14 x 14 x 256 to 256 channels, 3 x 3) blocked for the buffers, with two virtual
threads so that one block's loads overlap the other's GEMMs. ``import tvm`` gets this project's
compatibility package; the program, the verification against NumPy and the statistics are the
seed's.""",
    ),
}


def cells(code):
    """The code with a cell break ('# %%') before each comment that follows a blank line and precedes a
    top-level statement (a comment inside an if/elif chain or a loop stays in its cell)."""
    lines = code.splitlines()
    starts = set()
    for node in ast.parse(code).body:
        decorators = getattr(node, "decorator_list", [])
        starts.add(min([node.lineno] + [d.lineno for d in decorators]))
    out, blank = [], True
    for i, line in enumerate(lines):
        if line.startswith("#") and blank and out:
            j = i
            while j < len(lines) and (lines[j].startswith("#") or not lines[j].strip()):
                j += 1
            if j + 1 in starts:
                out += ["# %%", ""]  # (an empty text cell: the comment stays in the code, as the seed wrote it)
        out.append(line)
        blank = not line.strip()
    return "\n".join(out) + "\n"


def write(source, out):
    """The pages of every seed from the repository at `source` into the gallery directory `out`."""
    for seed, (page, title, intro) in PAGES.items():
        with open(os.path.join(source, "tests", "python", "tutorials", seed), encoding="utf-8") as f:
            code = f.read()
        header = f'"""\n{title}\n{"=" * len(title)}\n\n{intro}\n"""\n\n'
        # the seed's __future__ import must stay its first statement: it comes right after the docstring
        with open(os.path.join(out, page), "w", encoding="utf-8") as f:
            f.write(header + cells(code))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    write(*sys.argv[1:])


if __name__ == "__main__":
    main()
