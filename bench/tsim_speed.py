#!/usr/bin/python3
"""The tsim's speed against an earlier commit, side by side on this machine (docs/PERFORMANCE.md).

Builds this tree's and BASE's tsim benchmark and tutorials (BASE in a worktree kept under
~/.cache/vta/bench, built once), then prints for both tutorials:
  - simulated cycles per second (vta_bench_tsim's sim_cycles_per_s), the two builds alternated
    ROUNDS times, each round from a fresh copy of the executable; lowest, median and highest;
  - host instructions per simulated cycle under valgrind's callgrind (stable on a busy machine): the
    instructions inside the simulator's run (vta::tsim::Simulator::run and all it calls: the model's
    evaluation, its DPI functions, the DRAM model), divided by the tutorial's cycles.

Until 2026-11-29 the count was the tutorial's whole run on the tsim minus its run on the fsim. That
subtraction also took away the fsim's own GEMM work, which the fsim's kernels have since cut (under
valgrind, which hides AVX-512, from 627 M at ee04ba7 to 90 M instructions on the convolution): the figure rose
by ~1,150 per cycle with no change to the tsim. Counting inside the run reads the tsim alone.

    bench/tsim_speed.py [--base 94934a5] [--rounds 5] [--build build] [--no-callgrind]

Why fresh copies: on this machine (a VM) one executable's speed depends on where its pages landed in
memory, which stays fixed for as long as the file stays in the page cache. Identical bytes copied to
two files have run the convolution at 1.1 M and 1.5 M cycles/s, each copy the same run after run;
measuring one file measures one placement. Each round runs its own copy (all kept until the end, so
no two share pages), and the median is over placements.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOADS = {"conv": "BM_TsimConvolution", "matmul": "BM_TsimMatrixMultiply"}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def build(tree, build_dir, options=()):
    """The two targets, with the tree's own build script (an existing tree keeps its configuration)."""
    configure = [] if os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")) else ["-DCMAKE_BUILD_TYPE=Release", *options]
    run([os.path.join(tree, "scripts", "build.sh"), build_dir, *configure, "--target", "vta_bench_tsim",
         "--target", "vta-tutorials"], cwd=tree, stdout=subprocess.DEVNULL)


def base_tree(rev):
    """A worktree of `rev` with its own build, made once."""
    sha = run(["git", "-C", ROOT, "rev-parse", "--verify", rev + "^{commit}"], capture_output=True).stdout.strip()
    cache = os.path.join(os.path.expanduser("~"), ".cache", "vta", "bench", sha[:12])
    if not os.path.isdir(cache):
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        run(["git", "-C", ROOT, "worktree", "add", "--detach", "-f", cache, sha], stdout=subprocess.DEVNULL)
    return cache, sha[:7]


def cycles_per_second(executable):
    out = run([executable, "--benchmark_filter=BM_Tsim(Convolution|MatrixMultiply)"], capture_output=True,
              env=dict(os.environ, VTA_QUIET="1")).stdout
    speeds = {}
    for name, bench in WORKLOADS.items():
        m = re.search(bench + r"\S*\s.*?sim_cycles_per_s=([\d.]+)([kM]?)", out)
        if not m:
            sys.exit(f"tsim_speed: no sim_cycles_per_s for {bench} in:\n{out}")
        speeds[name] = float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6}[m.group(2)]
    return speeds


def instructions(build_dir, workload):
    """(instructions inside the simulator's run, cycles) of one tutorial on the tsim under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        # (the program is in tools/ since 1bb6a53, in examples/ before: a base may be either)
        program = next(p for p in (os.path.join(build_dir, d, "vta-tutorials") for d in ("tools", "examples"))
                       if os.path.exists(p))
        p = run(["valgrind", "--tool=callgrind", "--toggle-collect=vta::tsim::Simulator::run*",
                 "--callgrind-out-file=" + out, program, "--target", "tsim", workload],
                capture_output=True, env=dict(os.environ, VTA_QUIET="1"))
        m = re.search(r"Collected : (\d+)", p.stderr)
        c = re.search(r"cycle_count\s*:\s*(\d+)", p.stdout)
        if not m or not c or int(m.group(1)) == 0:
            sys.exit(f"tsim_speed: callgrind counted nothing in the tsim's run for {workload}:\n{p.stderr[-2000:]}")
        return int(m.group(1)), int(c.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="94934a5", help="the commit to compare with (default: 94934a5)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="alternated runs of each build, each from a fresh copy of its executable (default: 5)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="this tree's build directory")
    ap.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts")
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("tsim_speed: --rounds must be at least 1")

    base_dir, base_sha = base_tree(a.base)
    base_build = os.path.join(base_dir, "build")
    print(f"building {base_sha} in {base_dir} and this tree in {a.build} ...", flush=True)
    build(base_dir, base_build, ["-DVTA_BUILD_HW_TESTS=OFF"])
    build(ROOT, a.build)
    head = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True).stdout.strip()
    builds = {base_sha: base_build, head + " (this tree)": a.build}

    speeds = {b: {w: [] for w in WORKLOADS} for b in builds}
    with tempfile.TemporaryDirectory(prefix="tsim_speed.") as copies:
        for r in range(a.rounds):
            for i, (b, d) in enumerate(builds.items()):
                executable = os.path.join(copies, f"vta_bench_tsim.{i}.{r}")
                shutil.copy2(os.path.join(d, "bench", "vta_bench_tsim"), executable)
                for w, v in cycles_per_second(executable).items():
                    speeds[b][w].append(v)
            print(f"round {r + 1} of {a.rounds} done", flush=True)

    print("\nsimulated cycles per second (lowest / median / highest of the alternated runs, one copy each):")
    names = list(builds)
    for w in WORKLOADS:
        row = []
        for b in names:
            v = speeds[b][w]
            row.append(f"{b}: {min(v) / 1e6:.3f} / {statistics.median(v) / 1e6:.3f} / {max(v) / 1e6:.3f} M")
        ratio = statistics.median(speeds[names[1]][w]) / statistics.median(speeds[names[0]][w])
        print(f"  {w:7s} {'   '.join(row)}   ratio (medians) {ratio:.2f}x")

    if a.no_callgrind:
        return
    print("\nhost instructions per simulated cycle (callgrind: inside the simulator's run, over the cycles):")
    for w in WORKLOADS:
        per = {}
        for b, d in builds.items():
            tsim, cycles = instructions(d, w)
            per[b] = tsim / cycles
            print(f"  {w:7s} {b}: {per[b]:,.0f} per cycle ({cycles:,} cycles)", flush=True)
        print(f"  {w:7s} ratio {per[names[0]] / per[names[1]]:.2f}x fewer")


if __name__ == "__main__":
    try:
        main()
    except subprocess.CalledProcessError as e:
        sys.exit(f"tsim_speed: {' '.join(map(str, e.cmd))} failed (exit {e.returncode})")
    except KeyboardInterrupt:
        sys.exit("tsim_speed: interrupted")
