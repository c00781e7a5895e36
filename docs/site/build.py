#!/usr/bin/python3
"""Builds the documentation site (docs/SITE.md) into BUILD/html: the CMake target vta_docs runs it.

Steps, each timed: docs/ copied to BUILD/src (nothing is generated in the source tree); the seeds'
tutorials written as gallery pages (seed_tutorials.py); a C++ reference page per public header
directory; Doxygen's XML of the public headers; Sphinx with warnings as errors, which runs every
tutorial (Sphinx-Gallery) and resolves every cross-reference; then every internal link and anchor of
the HTML checked (check_links.py).

    build.py --source DIR --out DIR --headers DIR [DIR ...] [--doxygen PATH]

The environment gives the tutorials the package (PYTHONPATH: the TVM compatibility packages, then the
vta package) and the programs (VTA_BUILD_DIR); CMake sets both.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_links  # noqa: E402
import seed_tutorials  # noqa: E402

# the C++ reference's pages: header directory -> (page, title, what the library is for)
LIBRARIES = {
    "driver/include": ("driver", "Driver", "configurations, the ISA, devices and their backends, the `vta/driver.h` C API, "
                       "captures, timelines, energy"),
    "runtime/include": ("runtime", "Runtime", "the runtime the compiler targets (`vta/runtime.h`), tensors and "
                        "reference operators"),
    "compiler/include": ("compiler", "Compiler", "the tensor-expression DSL, schedules, lowering, modules"),
    "network/include": ("network", "Networks", "quantized graphs, their reference, ResNet-18, the executor"),
    "frontend/include": ("frontend", "Model front end", "ONNX import, the float reference, calibration and "
                         "quantization"),
    "remote/include": ("remote", "Remote devices", "the device server, its protocol and clients"),
    "board/include": ("board", "FPGA board", "the Linux board driver and its emulator"),
    "tsim/include": ("tsim", "Cycle-accurate simulation", "the tsim (Verilated RTL) and the SystemC/TLM-2.0 model"),
}


def step(name, started=[time.monotonic()]):  # noqa: B006  (the previous step's start, kept between calls)
    now = time.monotonic()
    print(f"docs: {name} ({now - started[0]:.1f} s since the last step)", flush=True)
    started[0] = now


def _signature(argsstring):
    """A function's parameter list as Breathe matches it: Doxygen's argsstring without default values,
    what follows the list but its const ("(int a, int b=2) const override" -> "(int a, int b) const")."""
    depth, params, current, end = 0, [], "", len(argsstring)
    for i, ch in enumerate(argsstring):
        if ch in "(<[{":
            depth += 1
            if depth == 1 and ch == "(":
                continue
        elif ch in ")>]}":
            depth -= 1
            if depth == 0 and ch == ")":
                end = i
                break
        if depth == 1 and ch == ",":
            params.append(current)
            current = ""
        else:
            current += ch
    params.append(current)

    def without_default(p):
        d = 0
        for i, ch in enumerate(p):
            d += ch in "(<[{"
            d -= ch in ")>]}"
            if ch == "=" and d == 0:
                return p[:i].strip()
        return p.strip()

    rest = argsstring[end + 1:]
    qualifier = " const" if re.match(r"\s*const\b", rest) else ""
    return "(" + ", ".join(p for p in map(without_default, params) if p) + ")" + qualifier


def _entities(xml):
    """Per header (its path under its include directory): the public entities it declares, in line order,
    as (line, directive, qualified name) from Doxygen's XML: each top-level class, struct and union, and
    each function, enum, typedef, variable and macro of a namespace or of the file itself."""
    import xml.etree.ElementTree as ET

    def header(location):  # (Doxygen strips the include directories: "vta/driver/energy.h")
        f = location.get("file", "") if location is not None else ""
        return f if f.endswith(".h") else None

    per_file = {}
    index = ET.parse(os.path.join(xml, "index.xml")).getroot()
    classes = {c.findtext("name") for c in index.findall("compound") if c.get("kind") in ("class", "struct", "union")}
    for c in index.findall("compound"):
        kind = c.get("kind")
        root = None
        if kind in ("class", "struct", "union", "namespace", "file"):
            root = ET.parse(os.path.join(xml, c.get("refid") + ".xml")).getroot().find("compounddef")
        if root is None:
            continue
        name = root.findtext("compoundname")
        if kind in ("class", "struct", "union"):
            if name.rsplit("::", 1)[0] in classes and "::" in name:
                continue  # a nested class: shown in its parent's page
            if root.get("prot") != "public" or root.find("location") is None:
                continue
            h = header(root.find("location"))
            if h:
                per_file.setdefault(h, []).append((int(root.find("location").get("line", 0)), kind, name))
            continue
        scope = "" if kind == "file" else name + "::"
        for m in root.iter("memberdef"):
            mkind = m.get("kind")
            if mkind not in ("function", "enum", "typedef", "variable", "define"):
                continue
            h = header(m.find("location"))
            if not h:
                continue
            qualified = scope + m.findtext("name")
            if mkind == "function":
                qualified += _signature(m.findtext("argsstring") or "()")
            per_file.setdefault(h, []).append((int(m.find("location").get("line", 0)), mkind, qualified))
    return {h: sorted(set(e)) for h, e in per_file.items()}


def cpp_pages(source, src, header_dirs, xml):
    """One page per header directory, each header a section with the directives of its entities; an index
    page over them. A header Doxygen found nothing public in is listed as such."""
    entities = _entities(xml)
    out = os.path.join(src, "api", "cpp")
    os.makedirs(out, exist_ok=True)
    pages = []
    for d in header_dirs:
        if d not in LIBRARIES:
            sys.exit(f"docs: {d} is a public header directory the C++ reference does not know: add it to "
                     f"LIBRARIES in {__file__}")
        page, title, about = LIBRARIES[d]
        root = os.path.join(source, d)
        headers = sorted(os.path.relpath(os.path.join(p, f), root)
                         for p, _, files in os.walk(root) for f in files if f.endswith(".h"))
        lines = [title, "=" * len(title), "", f"{about[0].upper()}{about[1:]} (``{d}/``).", ""]
        for h in headers:
            lines += [f"``{h}``", "-" * (len(h) + 4), ""]
            found = entities.get(h, [])
            if not found:
                lines += ["(Nothing public to document: macros or includes only.)", ""]
            shown = set()
            for _, kind, name in found:
                if (kind, name) in shown:
                    continue  # (a macro defined again after an #undef: one entry)
                shown.add((kind, name))
                lines += [f".. doxygen{kind}:: {name}", "   :project: vta"]
                if kind in ("class", "struct"):
                    lines += ["   :members:"]
                lines += [""]
        with open(os.path.join(out, page + ".rst"), "w") as f:
            f.write("\n".join(lines))
        pages.append(page)
    with open(os.path.join(out, "index.rst"), "w") as f:
        f.write("C++ API\n=======\n\nThe public headers, as installed (``cmake --install``, the ``.deb``), "
                "one page per library, from their ``///`` comments.\n\n.. toctree::\n   :maxdepth: 1\n\n")
        f.write("".join(f"   {p}\n" for p in pages))


def doxygen(doxygen_exe, source, out, header_dirs):
    """Doxygen's XML of the public headers (no HTML: Sphinx draws the pages through Breathe)."""
    dirs = " ".join(f'"{os.path.join(source, d)}"' for d in header_dirs)
    config = f"""
PROJECT_NAME = VTA
OUTPUT_DIRECTORY = "{out}"
INPUT = {dirs}
FILE_PATTERNS = *.h
RECURSIVE = YES
STRIP_FROM_PATH = {dirs}
STRIP_FROM_INC_PATH = {dirs}
FULL_PATH_NAMES = YES
GENERATE_HTML = NO
GENERATE_LATEX = NO
GENERATE_XML = YES
XML_PROGRAMLISTING = NO
EXTRACT_ALL = YES
EXTRACT_PRIVATE = NO
EXTRACT_STATIC = YES
HIDE_UNDOC_RELATIONS = YES
ENABLE_PREPROCESSING = YES
MACRO_EXPANSION = YES
EXPAND_ONLY_PREDEF = YES
PREDEFINED = TVM_DLL= __attribute__(x)=
QUIET = YES
WARNINGS = YES
WARN_IF_UNDOCUMENTED = NO
WARN_IF_DOC_ERROR = YES
WARN_AS_ERROR = FAIL_ON_WARNINGS
"""
    os.makedirs(out, exist_ok=True)
    subprocess.run([doxygen_exe, "-"], input=config, text=True, check=True)
    return os.path.join(out, "xml")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="the repository")
    ap.add_argument("--out", required=True, help="the site's build directory (BUILD/docs)")
    ap.add_argument("--headers", nargs="+", required=True, help="public header directories, relative to --source")
    ap.add_argument("--doxygen", default="doxygen")
    a = ap.parse_args()
    src = os.path.join(a.out, "src")
    step("copying docs/ into " + src)
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(os.path.join(a.source, "docs"), src, ignore=shutil.ignore_patterns("CMakeLists.txt", "__pycache__"))
    step("writing the seeds' tutorials")
    seed_tutorials.write(a.source, os.path.join(src, "tutorials"))
    step("Doxygen: the public headers' XML; the C++ reference's pages")
    xml = doxygen(a.doxygen, a.source, os.path.join(a.out, "doxygen"), a.headers)
    cpp_pages(a.source, src, a.headers, xml)
    step("Sphinx: every page, every tutorial run (warnings are errors)")
    env = dict(os.environ, VTA_DOXYGEN_XML=xml, VTA_SOURCE_DIR=a.source, PYTHONDONTWRITEBYTECODE="1")
    html = os.path.join(a.out, "html")
    # -E: every page read again, whatever an earlier build saved (copytree keeps the files' times, so an
    # incremental build would skip unchanged pages and never repeat their warnings: a fresh clone would
    # fail where this tree passed)
    subprocess.run([sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q", "-b", "html",
                    "-d", os.path.join(a.out, "doctrees"), src, html], env=env, check=True)
    step("checking every internal link and anchor")
    problems = check_links.check(html)
    for p in problems:
        print("docs: " + p, file=sys.stderr)
    if problems:
        sys.exit(f"docs: {len(problems)} broken internal links or anchors")
    step(f"the site is in {html}/index.html")


if __name__ == "__main__":
    try:
        main()
    except subprocess.CalledProcessError as e:
        sys.exit(f"docs: {e.cmd[0]} failed (exit {e.returncode}): the site is not built")
