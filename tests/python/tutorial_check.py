"""Runs a tutorial's own Python (tests/python/tutorials/, taken from the seeds by scripts/seed_code.py)
against the TVM compatibility layer and checks what it prints: every lowered program equals the one the
C++ tutorial prints at the same step, and the execution statistics are the seeds' table. The tutorial
checks its own outputs (it asserts them against NumPy and exits non-zero otherwise).

usage: tutorial_check.py TUTORIAL.py CPP_TUTORIALS_PROGRAM {matmul|conv}
"""

import os
import re
import subprocess
import sys

SEEDS = {  # the seeds' tables (001 and 002)
    "matmul": {"inp_load_nbytes": 4096, "wgt_load_nbytes": 1048576, "acc_load_nbytes": 0, "uop_load_nbytes": 20,
               "out_store_nbytes": 1024, "gemm_counter": 4096, "alu_counter": 192},
    "conv": {"inp_load_nbytes": 114688, "wgt_load_nbytes": 1179648, "acc_load_nbytes": 0, "uop_load_nbytes": 1144,
             "out_store_nbytes": 50176, "gemm_counter": 451584, "alu_counter": 9408},
}
STEPS = ["default schedule", "blocked schedule", "final lowered program"]  # what the tutorials print


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if r.returncode != 0:
        sys.exit(f"tutorial_check: {' '.join(cmd)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r.stdout


def cpp_steps(text):
    """The C++ tutorial's printed programs by step title."""
    steps, title, lines = {}, None, []
    for line in text.splitlines(keepends=True):
        m = re.match(r"^// ---- (.*)$", line)
        if m or line.startswith("== "):
            if title:
                steps[title] = "".join(lines)
            title, lines = (m.group(1) if m else None), []
        elif title:
            lines.append(line)
    return steps


def main():
    tutorial, cpp, which = sys.argv[1:4]
    out = run([sys.executable, tutorial])
    steps = cpp_steps(run([cpp, which, "--print"]))
    at = 0
    for want in STEPS:
        title = next(t for t in steps if t.startswith(want))
        program = steps[title].rstrip("\n") + "\n"
        found = out.find(program, at)
        if found < 0:
            sys.exit(f"tutorial_check: the tutorial does not print the C++ tutorial's {title!r} program "
                     f"(after offset {at}):\n{program}\n---- the tutorial printed:\n{out}")
        at = found + len(program)
    stats = dict(re.findall(r"^\t(\w+)\s*:\s+(\d+)$", out, re.M))
    got = {k: int(v) for k, v in stats.items()}
    if got != SEEDS[which]:
        sys.exit(f"tutorial_check: statistics {got}, the seeds' {SEEDS[which]}")
    print(f"tutorial_check: {os.path.basename(tutorial)} on {os.environ.get('VTA_TARGET', 'fsim')}: "
          f"{len(STEPS)} programs equal the C++ tutorial's, the seeds' statistics, its own checks passed")


if __name__ == "__main__":
    main()
