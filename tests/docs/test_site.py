#!/usr/bin/python3
"""ctest Docs.Site: builds the documentation site as `vta_docs` does (docs/site/build.py: every tutorial
run, Sphinx's warnings as errors, every internal link and anchor checked) into OUT, then reads its pages
for what a reader must find there: each tutorial's own output (verified results, the seeds' statistics,
the tsim's cycles, the timeline picture), every public C++ header in the C++ reference, the Python
package's functions in the Python reference, and every guide of docs/.

    test_site.py OUT BUILD_COMMAND...      (BUILD_COMMAND: docs/site/build.py's, without --out)
"""
import html
import os
import re
import subprocess
import sys
import time


def visible_text(raw):
    """The visible text of an HTML document, scripts and tags dropped, entities decoded, whitespace
    collapsed (test_browser.py reads chromium's DOM with it too)."""
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw)))


def text(path):
    """The visible text of the HTML page at `path`."""
    with open(path, encoding="utf-8") as f:
        return visible_text(f.read())


def main():
    out, command = sys.argv[1], sys.argv[2:]
    started = time.monotonic()
    r = subprocess.run(command + ["--out", out], timeout=840)
    if r.returncode != 0:
        sys.exit(f"the site did not build (exit {r.returncode})")
    print(f"the site built in {time.monotonic() - started:.1f} s")
    site = os.path.join(out, "html")
    failures = []

    def expect(page, *needles):
        path = os.path.join(site, page)
        if not os.path.exists(path):
            failures.append(f"{page}: missing")
            return
        t = text(path)
        for n in needles:
            if not (n.search(t) if isinstance(n, re.Pattern) else n in t):
                failures.append(f"{page}: no {n if isinstance(n, str) else n.pattern!r}")

    t = "generated/tutorials/"
    expect("index.html", "Getting started", "Using VTA", "API reference")
    # each tutorial's page shows what its run printed
    # (the helper's functions shown by literalinclude; highlighting splits the tokens with spaces)
    expect(t + "01_getting_started.html", re.compile(r"def\s*declare\s*\(\s*env\s*,\s*m\s*=\s*16\s*\)"),
           re.compile(r"def\s*schedule\s*\(\s*env\s*,\s*A_buf"),
           "verified against NumPy", "'alu_counter': 16",
           re.compile(r"'cycle_count': [1-9][0-9]*\}"), "'total_pj'")
    expect(t + "02_matrix_multiply.html", "verified against NumPy", "wgt_load_nbytes 1048576", "gemm_counter 4096",
           re.compile(r"estimated cycles: [1-9][0-9]*"))
    if not os.path.exists(os.path.join(site, "_images", "matrix_multiply_timeline.svg")):
        failures.append("the matrix multiply's timeline picture is not on the site")
    expect(t + "03_seed_matrix_multiply.html", "Successful blocked matrix multiply test!",
           re.compile(r"wgt_load_nbytes\s*:\s*1048576"), re.compile(r"gemm_counter\s*:\s*4096"))
    expect(t + "04_seed_convolution.html", "Successful 2D convolution test!",
           re.compile(r"gemm_counter\s*:\s*451584"), re.compile(r"wgt_load_nbytes\s*:\s*1179648"))
    expect(t + "06_device_server.html", re.compile(r"serving tsim \(\S+\) on 127\.0\.0\.1:\d+"),
           re.compile(r"verified against NumPy; \{.*'cycle_count': [1-9]"), "ValueError:", "the next call ran",
           "the server exited with 0")
    expect(t + "05_onnx_model.html", "VTA: GEMM", re.compile(r"accuracy on 200 test images: int8 on VTA [0-9.]+ %"))
    expect(t + "07_resnet18.html", "verified: every VTA step equals the reference",
           re.compile(r"[0-9,]{9} cycles on VTA; [0-9,]+ GEMM micro-ops"))
    expect(t + "08_waveforms.html", "add.gtkw", re.compile(r"#\d+ ALU ADD alu_opcode=2"), "UnitAlu")
    expect(t + "09_sweep.html", "8 of 8 tasks verified", re.compile(r"resnet18 64\s+[0-9,]{7}"),
           re.compile(r"[0-9a-f]{16} -> \S+-sweep-[0-9a-f]{16}"), re.compile(r"[0-9a-f]{16} -> this build"),
           re.compile(r"resnet18 64: a 256-bit bus takes 0\.[0-9]+x the cycles"), "verified: True")
    images = os.listdir(os.path.join(site, "_images"))
    for tutorial in ("07_resnet18", "08_waveforms", "09_sweep"):  # the chart, GTKWave's screen, the Pareto chart
        if not any(i.startswith(f"sphx_glr_{tutorial}_001") for i in images):
            failures.append(f"{tutorial}: no picture on the page")
    # the C++ reference: every public header, by the path a user includes
    source = command[command.index("--source") + 1]
    dirs = command[command.index("--headers") + 1:]
    cpp = " ".join(text(os.path.join(site, "api", "cpp", f)) for f in os.listdir(os.path.join(site, "api", "cpp")))
    for d in dirs:
        for p, _, files in os.walk(os.path.join(source, d)):
            for f in files:
                if f.endswith(".h") and os.path.relpath(os.path.join(p, f), os.path.join(source, d)) not in cpp:
                    failures.append(f"the C++ reference has no page section for {os.path.join(d, os.path.relpath(p, os.path.join(source, d)), f)}")
    expect("api/cpp/driver.html", "estimate_energy_by_stage", "class Config")
    expect("api/python.html", *(re.compile(r"\b" + n.replace(".", r"\.\s*") + r"\s*\(") for n in
                                ("vta.local_session", "vta.network.import_onnx", "vta.build")))
    # every guide of docs/ is a page
    for f in sorted(os.listdir(os.path.join(source, "docs"))):
        if f.endswith(".md"):
            expect(f[:-3] + ".html", "VTA")
    for f in failures:
        print("Docs.Site: " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
