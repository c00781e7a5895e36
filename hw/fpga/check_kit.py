#!/usr/bin/env python3
"""Checks the board kit (hw/fpga) as far as it can be without Vivado or a board (test Fpga.Kit):

- vta_project.tcl's sources are the synthesis build's (hw/CMakeLists.txt VTA_HW_SYNTH_SOURCES), in
  its order, then the wrapper; the wrapper instantiates vta_top, the synthesis top;
- the wrapper passes Verilator's lint with the build's package, its widths the configuration's;
- each device-tree overlay compiles with dtc, and its register window and interrupt are what the
  project assigns (address, a window of at least vcr_map.h's size, the IRQ line);
- docs/FPGA.md names the files it tells a user to use.

usage: check_kit.py --build BUILD --verilator V --dtc DTC --fdtget FDTGET --waiver VLT SOURCES...
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def tcl_sources(tcl, build):
    """The files the project adds for the build's configuration: its `sources` list, with `{*}$stage`
    the compute stage's list the project chooses from the generated package (stage_one or stage_two)."""
    text = open(tcl).read()
    block = re.search(r"set sources \[list \\\n(.*?)\n\]", text, re.S)
    if not block:
        return None, text
    pkg = open(os.path.join(build, "generated", "hw", "vta_config_pkg.sv")).read()
    chosen = "stage_two" if re.search(r"\bComputeIssue = 2;", pkg) else "stage_one"
    stage = re.search(r"^set %s \[list (.*?)\]$" % chosen, text, re.M)
    files = []
    for line in block.group(1).splitlines():
        entry = line.strip().rstrip("\\").strip()
        if entry == "{*}$stage" and stage:
            files += stage.group(1).split()
        elif entry:
            files.append(entry)
    return [os.path.normpath(f.replace("$build", build).replace("$root", ROOT)) for f in files], text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--verilator", required=True)
    ap.add_argument("--dtc", required=True)
    ap.add_argument("--fdtget", required=True)
    ap.add_argument("--waiver", required=True)
    ap.add_argument("sources", nargs="+")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    vcr = open(os.path.join(ROOT, "driver", "include", "vta", "driver", "vcr_map.h")).read()
    a.window_bytes = int(re.search(r"kWindowBytes = (0x[0-9a-fA-F]+);", vcr).group(1), 16)

    # 1. the project's sources are the build's
    sources, tcl = tcl_sources(os.path.join(HERE, "vta_project.tcl"), build)
    want = [os.path.normpath(os.path.abspath(s)) for s in a.sources] + [os.path.join(HERE, "vta_axi_wrapper.v")]
    check(sources == want, "vta_project.tcl lists the synthesis sources in order, then the wrapper")
    if sources != want and sources:
        for s in sorted(set(want) - set(sources)):
            print("      missing: " + s)
        for s in sorted(set(sources) - set(want)):
            print("      not built: " + s)
    wrapper = open(os.path.join(HERE, "vta_axi_wrapper.v")).read()
    check(re.search(r"-reference vta_axi_wrapper", tcl) is not None, "the block design's module is vta_axi_wrapper")
    check(re.search(r"^\s*vta_top\s+u_vta", wrapper, re.M) is not None, "the wrapper instantiates vta_top")

    # 2. the wrapper with the build's configuration
    pkg = open(os.path.join(build, "generated", "hw", "vta_config_pkg.sv")).read()
    vpkg = open(os.path.join(ROOT, "hw", "rtl", "vta_pkg.sv")).read()
    bus = int(re.search(r"\bBusWidth = (\d+);", pkg).group(1))
    ids = int(re.search(r"AxiIdWidth = (\d+);", pkg + vpkg).group(1))
    # as synthesis reads it (SYNTHESIS defined: no simulation-only code, so the signals only the assertions
    # read are unused there; `interrupt` is the name Vivado recognises, a C++ word to Verilator)
    lint = subprocess.run([a.verilator, "--lint-only", "-Wall", "-Wno-UNUSEDSIGNAL", "-Wno-SYMRSVDWORD",
                           "-DSYNTHESIS", a.waiver,
                           "-I" + os.path.join(ROOT, "hw", "prim")] + want +
                          ["--top-module", "vta_axi_wrapper", "-GBUS_WIDTH=%d" % bus, "-GID_WIDTH=%d" % ids],
                          capture_output=True, text=True)
    check(lint.returncode == 0, "the wrapper passes Verilator's lint with BUS_WIDTH=%d ID_WIDTH=%d" % (bus, ids))
    if lint.returncode != 0:
        print(lint.stderr[:4000])

    # 3. the overlays
    bases = dict(re.findall(r"set ps (zynq7|zynqmp);\s+set ctrl_base (0x[0-9A-Fa-f]+)", tcl))
    irqs = {"zynq7": 61 - 32, "zynqmp": 121 - 32}  # IRQ_F2P[0], pl_ps_irq0[0] as GIC SPIs
    with tempfile.TemporaryDirectory() as tmp:
        for ps in ("zynq7", "zynqmp"):
            dts = os.path.join(HERE, "overlays", "vta-%s.dts" % ps)
            dtbo = os.path.join(tmp, ps + ".dtbo")
            r = subprocess.run([a.dtc, "-@", "-I", "dts", "-O", "dtb", "-o", dtbo, dts], capture_output=True, text=True)
            check(r.returncode == 0, "dtc compiles overlays/vta-%s.dts" % ps)
            if r.returncode != 0:
                print(r.stderr)
                continue
            base = int(bases.get(ps, "0"), 16)
            node = "/fragment@1/__overlay__/vta@%x" % base

            def get(prop, node=node):
                out = subprocess.run([a.fdtget, "-t", "u", dtbo, node, prop], capture_output=True, text=True)
                return [int(x) for x in out.stdout.split()] if out.returncode == 0 else None

            reg = get("reg")
            check(reg is not None and reg[-2 if len(reg) == 2 else -3] == base and reg[-1] >= a.window_bytes,
                  "vta-%s: the register window at 0x%x, at least %d bytes (reg %s)" % (ps, base, a.window_bytes, reg))
            intr = get("interrupts")
            check(intr is not None and intr[1] == irqs[ps], "vta-%s: the interrupt is SPI %d (%s)" % (ps, irqs[ps], intr))
            compat = subprocess.run([a.fdtget, dtbo, node, "compatible"], capture_output=True, text=True).stdout.strip()
            check(compat == "generic-uio", "vta-%s: the window is a generic-uio device" % ps)
            dev = subprocess.run([a.fdtget, dtbo, "/fragment@1/__overlay__/udmabuf0", "device-name"],
                                 capture_output=True, text=True).stdout.strip()
            check(dev == "udmabuf0", "vta-%s: the DMA buffer is /dev/udmabuf0 (the backend's default)" % ps)

    # 4. the document names what it tells a user to use
    doc = open(os.path.join(ROOT, "docs", "FPGA.md")).read()
    for f in ("hw/fpga/vta_project.tcl", "hw/fpga/overlays/vta-zynq7.dts", "hw/fpga/overlays/vta-zynqmp.dts",
              "hw/fpga/vta.xdc", "vta-board-emulator"):
        check(f in doc, "docs/FPGA.md names " + f)

    if failures:
        print("check_kit: %d check(s) failed" % len(failures))
        return 1
    print("check_kit: the board kit agrees with the build (Vivado and the board itself are not run here)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
