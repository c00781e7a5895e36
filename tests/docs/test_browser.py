#!/usr/bin/python3
"""ctest Docs.Browser: the built site (Docs.Site's) opened in a real browser, Debian's headless
chromium, which runs the pages' scripts: the index, a tutorial and a C++ API page show their content,
and the site's search (JavaScript over the search index) finds a function in both references. Asserts
on the text of the rendered page (chromium's --dump-dom), never on pixels; with --screenshots DIR it
also saves what the browser drew, for a person to look at.

    test_browser.py HTML_DIR CHROMIUM [--screenshots DIR]
"""
import os
import re
import subprocess
import sys
import tempfile

from test_site import visible_text


# headless, as root (no sandbox), without a GPU, /dev/shm (small in containers) or any network of its own
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update"]


def browse(chromium, url, profile):
    """The text of the DOM after the page's scripts ran (5 s of virtual time: no wall-clock wait)."""
    r = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                        "--dump-dom", url],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit(f"chromium failed on {url} (exit {r.returncode}): {r.stderr[-2000:]}")
    return visible_text(r.stdout)


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    site, chromium = os.path.abspath(sys.argv[1]), sys.argv[2]
    shots = sys.argv[4] if len(sys.argv) == 5 else None
    failures = []
    with tempfile.TemporaryDirectory() as profile:
        pages = {
            "index.html": ["VTA, the Versatile Tensor Accelerator", "Getting started", "Python API", "C++ API"],
            "generated/tutorials/02_matrix_multiply.html": ["Matrix multiply, blocked for VTA", "verified against NumPy",
                                                            "gemm_counter 4096"],
            "api/cpp/driver.html": ["estimate_energy_by_stage", "vta/driver/energy.h"],
            # the search runs in the browser over searchindex.js
            "search.html?q=estimate_cycles": ["Search finished, found", "estimate_cycles (Python function",
                                              "estimate_cycles (C++ function"],
        }
        for page, needles in pages.items():
            text = browse(chromium, "file://" + os.path.join(site, page), profile)
            for n in needles:
                if n not in text:
                    failures.append(f"{page}: the browser shows no {n!r}")
            print(f"{page}: {len(text)} characters of text")
            if shots:
                os.makedirs(shots, exist_ok=True)
                name = re.sub(r"[^A-Za-z0-9]+", "_", page.split("?")[0])[:-5] + ".png"
                subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}",
                                "--hide-scrollbars", "--window-size=1280,1000", "--virtual-time-budget=3000",
                                f"--screenshot={os.path.join(shots, name)}", "file://" + os.path.join(site, page)],
                               capture_output=True, timeout=120, check=True)
    for f in failures:
        print("Docs.Browser: " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
