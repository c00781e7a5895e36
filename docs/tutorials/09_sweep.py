"""
A design-space sweep and its Pareto chart
=========================================

Which VTA is the right one for a workload: a wider memory bus, a larger weight buffer, both? Each
configuration is a different piece of hardware, so each is its own Verilated build. ``vta-sweep``
expands a spec (configurations x workloads x backends) into independent tasks, builds the tree of each
configuration once, runs every task verified against its plain C++ reference, and merges the results
into tables and a Pareto chart. Here: two bus widths by two weight buffer sizes, the first seed's matrix
multiply and a small ResNet-18, every run on the tsim.
"""

# %%
# The spec
# --------
# ``vary`` takes the cartesian product of its lists over a base configuration (here, without ``base``,
# the one this build was made for): four configurations. Each workload is verified bit for bit on each;
# ``tsim`` gives cycles. (``"synthesis": true`` would add a Yosys run per configuration and draw the
# chart against LUTs instead of SRAM bytes: about 90 s each, left out here.)
import json
import os
import subprocess
import tempfile
import time

import matplotlib.pyplot as plt

build = os.path.abspath(os.environ.get("VTA_BUILD_DIR", "build"))
sweep_exe = os.path.join(build, "tools", "vta-sweep")
work = tempfile.mkdtemp()
spec = {
    "name": "bus width x weight buffer",
    "configs": [{"vary": {"LOG_BUS_WIDTH": [6, 8], "LOG_WGT_BUFF_SIZE": [16, 18]}}],
    "workloads": [{"kind": "tutorial", "name": "matmul"}, {"kind": "resnet18", "image": 64, "width": 32}],
    "backends": ["tsim"],
}
with open(os.path.join(work, "spec.json"), "w") as f:
    json.dump(spec, f, indent=2)
out = os.path.join(work, "sweep")

# %%
# The tasks
# ---------
# ``expand`` writes the sweep directory (each configuration as a file named by its hash, the task list)
# and runs nothing: one line per task, its configuration, workload, backend and configuration hash.
print(subprocess.run([sweep_exe, "expand", os.path.join(work, "spec.json"), "--out", out], check=True,
                     capture_output=True, text=True).stdout)

# %%
# Run them
# --------
# ``run`` starts two worker processes here (``--executor slurm`` submits the same tasks as one Slurm job
# array). A task whose configuration is this build's runs in this build; the others run in a tree made
# for their configuration beside this one (``build-sweep-<hash>``), built by the first task that needs it
# while the others wait. The compiler cache serves every object that does not read the configuration,
# so a tree costs seconds, not minutes; the second sweep over the same configurations finds them built.
started = time.monotonic()
run = subprocess.run([sweep_exe, "run", os.path.join(work, "spec.json"), "--out", out, "--workers", "2"],
                     capture_output=True, text=True, timeout=1800)
print(run.stdout + run.stderr)
assert run.returncode == 0, "a task was not verified"
print(f"{time.monotonic() - started:.0f} s, the trees' builds included")
with open(os.path.join(out, "tasks.json")) as f:
    hashes = sorted({t["config_hash"] for t in json.load(f)["tasks"]})
for h in hashes:
    tree = f"{build}-sweep-{h}"
    print(h, "->", os.path.basename(tree) if os.path.isdir(tree) else "this build")

# %%
# The results
# -----------
# Each task wrote ``results/<index>.json``; ``merge`` (the last step of ``run``) joined them into
# ``results.json``, ``.csv``, ``.md`` and a JUnit file. Each row carries the task's cycles and energy
# and its configuration's resources (SRAM bytes, multiply-accumulators).
with open(os.path.join(out, "results.json")) as f:
    rows = json.load(f)
print(f"{'configuration':36} {'workload':16} {'cycles':>9} {'energy uJ':>10} {'SRAM KiB':>9}")
for r in rows:
    print(f"{r['config'].replace('this build ', ''):36} {r['label']:16} {r['stats']['cycle_count']:>9,} "
          f"{r['energy']['total_pj'] / 1e6:>10.1f} {r['resources']['total_sram_bytes'] // 1024:>9}")

# %%
# What the numbers say: on both workloads the bus width decides, and the larger weight buffer buys
# little for its extra SRAM.
def cycles(label, setting):
    """The workload's cycles summed over the configurations with this setting."""
    return sum(r["stats"]["cycle_count"] for r in rows if r["label"] == label and setting in r["config"])


for label in ("tutorial matmul", "resnet18 64"):
    bus = cycles(label, "LOG_BUS_WIDTH=8") / cycles(label, "LOG_BUS_WIDTH=6")
    buffer = cycles(label, "LOG_WGT_BUFF_SIZE=18") / cycles(label, "LOG_WGT_BUFF_SIZE=16")
    print(f"{label}: a 256-bit bus takes {bus:.2f}x the cycles of a 64-bit one; "
          f"a 256 KiB weight buffer {buffer:.3f}x those of a 64 KiB one")

# %%
# The Pareto chart
# ----------------
# ``results.md`` lists each workload's Pareto front: the configurations no other beats on both cost
# (SRAM bytes here) and cycles. ``pareto.png`` (and ``.svg``) draws it with ``sweep/charts.py``: per
# workload, cycles against the cost and energy against cycles, the front in red.
with open(os.path.join(out, "results.md")) as f:
    print("".join(line for line in f if line.startswith("- ")))
picture = plt.imread(os.path.join(out, "pareto.png"))
fig = plt.figure(figsize=(picture.shape[1] / 100, picture.shape[0] / 100), dpi=100)
fig.figimage(picture)

# %%
# One task again
# --------------
# Every result names the command that reproduces it (a failure's reproducer): here the first
# ResNet-18 task, run again on its own.
task = next(r for r in rows if r["label"] == "resnet18 64")
print(task["command"])
again = subprocess.run([sweep_exe, "task", out, str(task["index"])], capture_output=True, text=True,
                       timeout=600)
assert again.returncode == 0, again.stdout + again.stderr
with open(os.path.join(out, "results", f"{task['index']}.json")) as f:
    result = json.load(f)
print(f"verified: {result['verified']}, {result['stats']['cycle_count']:,} cycles (as in the sweep: "
      f"{task['stats']['cycle_count']:,})")
