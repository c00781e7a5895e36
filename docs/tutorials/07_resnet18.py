"""
ResNet-18 on the cycle-accurate simulator
=========================================

A whole quantized ResNet-18 (224 x 224, generated weights) as VTA runs it: the first convolution,
the pools and the classifier on the host, layers 1 to 4 as 16 VTA programs with each block's residual
fused into its second convolution, activations kept in the device's memory between them. Every VTA
step runs on the tsim, the RTL cycle by cycle, and is verified bit for bit against the plain C++
reference; the page ends with where the cycles go.
"""

# %%
# The network and its steps
# -------------------------
# ``vn.resnet18`` builds the graph with seeded weights; ``calibrate_shifts`` picks each
# requantization's shift from a run of the input. The executor compiles each VTA step once and
# estimates its cycles from its program.
import numpy as np
import matplotlib.pyplot as plt

import vta.network as vn

g = vn.resnet18(image=224, seed=1)
x = vn.generated_input(g, seed=1)
g.calibrate_shifts(x)
steps = [s for s in vn.Executor(g).steps]
vta_steps = [s["name"] for s in steps if s["placement"] == "vta"]
print(len(steps), "steps,", len(vta_steps), "on VTA:", ", ".join(vta_steps))

# %%
# Run it on the tsim
# ------------------
# ``tsim_steps`` names the first and the last VTA step run cycle by cycle; the host's steps run in
# this process. About ten seconds: seven million cycles of RTL.
ex = vn.Executor(g, tsim_steps=f"{vta_steps[0]}:{vta_steps[-1]}")
run = ex.run(x)
assert run["verified"], "a step differs from the reference"
print("verified: every VTA step equals the reference;", f"{run['seconds']:.1f} s")
print("top-5 classes:", np.argsort(run["output"].reshape(-1))[::-1][:5])
total = sum(s["stats"]["cycle_count"] or 0 for s in run["steps"] if s["placement"] == "vta")
gemm = run["vta"]["gemm_counter"]
print(f"{total:,} cycles on VTA; {gemm:,} GEMM micro-ops: the GEMM core busy {100 * gemm / total:.1f} % of them")

# %%
# Where the cycles go
# -------------------
# Each VTA step on one time axis, in the order they ran, with the estimate made from its program beside
# the cycles the RTL took.
measured = [(s["name"], s["stats"]["cycle_count"]) for s in run["steps"] if s["placement"] == "vta"]
estimated = {s["name"]: s["estimated_cycles"] for s in steps}
fig, (timeline, error) = plt.subplots(2, 1, figsize=(10, 6.5), gridspec_kw={"height_ratios": [1, 2]})
start = 0
colours = {"layer1": "#4c72b0", "layer2": "#55a868", "layer3": "#c44e52", "layer4": "#8172b2"}
for name, cycles in measured:
    timeline.barh(0, cycles / 1e6, left=start / 1e6, color=colours[name.split(".")[0]], edgecolor="white")
    start += cycles
for layer, colour in colours.items():
    timeline.barh(0, 0, color=colour, label=layer)
timeline.set_yticks([])
timeline.set_xlabel("million cycles (tsim)")
timeline.set_xlim(0, start / 1e6)
timeline.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
timeline.set_title(f"ResNet-18's {len(measured)} VTA steps on the tsim, in the order they ran")
names = [n for n, _ in measured]
error.bar(range(len(names)), [c / 1e3 for _, c in measured], color="#4c72b0", label="tsim")
error.plot(range(len(names)), [estimated[n] / 1e3 for n in names], "o", color="#dd8452",
           label="estimated from the program")
error.set_xticks(range(len(names)))
error.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
error.set_ylabel("thousand cycles")
error.set_ylim(0, 1.25 * max(c for _, c in measured) / 1e3)
error.legend(loc="upper center", ncol=2, frameon=False)
fig.tight_layout()
for n, c in measured:
    print(f"{n:18} {c:>9,} cycles, estimated {estimated[n]:>9,} ({100 * (estimated[n] - c) / c:+.1f} %)")
