#!/usr/bin/env python3
"""Prints the Python code of a tutorial seed (../shared/seeds/), its code blocks verbatim and in order.

A seed is a tutorial page as it was saved: Markdown with ``` python fences (001, the blocked matrix
multiply) or Sphinx-Gallery HTML with highlighted <pre> blocks (002, the 2D convolution). The blocks
are the tutorial's program; the script's outputs shown between them are not. It generated the
programs tests/python/ runs against the compatibility layer (docs/PYTHON.md):

    scripts/seed_code.py ../shared/seeds/001_a10a822ed639717a.txt > tests/python/tutorials/matrix_multiply_opt.py
    scripts/seed_code.py ../shared/seeds/002_c25605e728a583c7.txt > tests/python/tutorials/convolution_opt.py
"""

import html
import re
import sys

FENCE = re.compile(r"^``` ?python\n(.*?)^```", re.S | re.M)
# a highlighted code block of Sphinx-Gallery (its outputs are highlight-none blocks)
PRE = re.compile(r'<div class="highlight-(?:default|python3?) notranslate"><div class="highlight"><pre>(.*?)</pre>', re.S)
TAG = re.compile(r"<[^>]+>")


def code_blocks(text):
    blocks = FENCE.findall(text) or [html.unescape(TAG.sub("", b)) for b in PRE.findall(text)]
    # a block that is not Python (001 shows the blocked loop nest as C pseudo-code in a python fence) is
    # prose, not program: left out, and said on stderr
    kept = []
    for i, b in enumerate(blocks):
        try:
            compile(b, f"block {i}", "exec")
            kept.append(b)
        except SyntaxError as e:
            print(f"seed_code.py: block {i} is not Python ({e.msg}, line {e.lineno}): left out", file=sys.stderr)
    return kept


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: seed_code.py SEED")
    with open(sys.argv[1], encoding="utf-8") as f:
        blocks = code_blocks(f.read())
    if not blocks:
        sys.exit(f"seed_code.py: no Python code block in {sys.argv[1]}")
    print("\n".join(b.rstrip("\n") + "\n" for b in blocks), end="")


if __name__ == "__main__":
    main()
