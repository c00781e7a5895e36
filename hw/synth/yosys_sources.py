#!/usr/bin/env python3
"""Writes the RTL as Yosys 0.23 (Debian 12) reads it: the same modules, with the package imports
resolved by name.

Yosys's own Verilog front end has no `import` (neither `import pkg::*;` in a module header nor in a
package) and elaborates a package function where it is called; it does read `pkg::name`. The RTL
itself is written in the subset Yosys and Verilator share (docs/SYNTHESIS.md lists what that rules
out); only the imports are rewritten here, mechanically:

  1. a package that imports another gets that package's declarations inlined (vta_pkg carries
     vta_config_pkg's constants), and names of the inlined package refer to the importer;
  2. in every module, `import pkg::*;` lines are dropped and every name the imported packages declare
     (constants, types, enum items, functions) is written `pkg::name`;
  3. inside a package's functions, the package's own names are qualified the same way (they are
     elaborated in the caller's scope), except the function's own name (its result variable);
  4. casts to an enum type (`name_e'(x)`) become parentheses: every enum here is as wide as the
     value cast to it, and Yosys has no casts to user types.

Usage: yosys_sources.py OUT_DIR FILE...  (packages first, as in hw/CMakeLists.txt's lists)
"""
import pathlib
import re
import sys

sys.dont_write_bytecode = True  # (no __pycache__ in the source tree)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import script_args  # noqa: E402  (the scripts' checks of their arguments and files)

MAX_SOURCE_BYTES = 16 << 20  # (the largest RTL file is under 100 KB)

PACKAGE = re.compile(r'^package\s+(\w+);\n(.*?)^endpackage[^\n]*\n', re.S | re.M)
IMPORT = re.compile(r'^\s*import\s+(\w+)::\*;\s*\n', re.M)
FUNCTION = re.compile(r'^  function\s+automatic.*?endfunction', re.S | re.M)
FUNCTION_NAME = re.compile(r'function\s+automatic\s+[^;(]*?(\w+)\s*\(')
ENUM_CAST = re.compile(r"(?<![\w:])(?:\w+::)?\w+_e'\(")
DECLARATION = re.compile(
    r'\blocalparam\b(?P<params>[^;]*);'
    r'|typedef\s+struct\s+packed\s*\{[^}]*\}\s*(?P<struct>\w+)\s*;'
    r'|typedef\s+enum[^{]*\{(?P<items>[^}]*)\}\s*(?P<enum>\w+)\s*;'
    r'|typedef\s+[^;{]*?\s(?P<alias>\w+)\s*;'
    r'|function\s+automatic\s+[^;(]*?(?P<function>\w+)\s*\(', re.S)


def top_level_parts(text):
    """`text` split at the commas outside brackets (the items of a declaration list)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in '([{') - (ch in ')]}')
        if ch == ',' and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def declared_names(body):
    """Every name a package body declares."""
    names = set()
    for match in DECLARATION.finditer(re.sub(r'//[^\n]*', '', body)):
        if match.group('params'):  # `localparam [type] A = x, B = y`: the last word before each `=`
            names.update(re.findall(r'\w+', part.split('=')[0])[-1]
                         for part in top_level_parts(match.group('params')) if '=' in part)
        for group in ('struct', 'enum', 'alias', 'function'):
            if match.group(group):
                names.add(match.group(group))
        if match.group('items'):
            names.update(item.split('=')[0].strip() for item in match.group('items').split(','))
    return names


class Packages:
    def __init__(self, texts):
        self.bodies = {}
        for text in texts:
            for match in PACKAGE.finditer(text):
                self.bodies[match.group(1)] = match.group(2)
        self.owner = {}  # (package, name) -> the package that holds a copy of it
        for name, body in list(self.bodies.items()):
            self.bodies[name] = IMPORT.sub(lambda m, into=name: self._inline(m.group(1), into), body)
        self.names = {name: declared_names(body) for name, body in self.bodies.items()}

    def _inline(self, imported, into):
        if imported not in self.bodies:
            sys.exit(f'yosys_sources.py: package {imported} (imported by {into}) is not among the inputs')
        for name in declared_names(self.bodies[imported]):
            self.owner.setdefault((imported, name), into)
        return self.bodies[imported]

    def qualify(self, text, imports, keep=()):
        """`text` with the names of the imported packages written pkg::name."""
        text = IMPORT.sub('', text)
        # a package holding copies of another's names comes first, so the copies are the ones used
        imports = sorted(imports, key=lambda p: 0 if p in self.owner.values() else 1)
        done = set(keep)
        for package in imports:
            if package not in self.names:
                sys.exit(f'yosys_sources.py: package {package} is not among the inputs')
            names = sorted(self.names[package] - done, key=len, reverse=True)
            if not names:
                continue
            done.update(names)
            # one pass over the text for all of the package's names (a pass per name cost the formal
            # label's runs 4 s each: thousands of substitutions over every file)
            pattern = r'(?<!::)(?<![\w$.])(' + '|'.join(map(re.escape, names)) + r')\b'
            text = re.sub(pattern, lambda m, p=package: self.owner.get((p, m.group(1)), p) + '::' + m.group(1), text)
        return text

    def package_text(self, name):
        def own_names(match):
            function = FUNCTION_NAME.search(match.group(0)).group(1)
            return self.qualify(match.group(0), [name], keep={function})
        return f'package {name};\n{FUNCTION.sub(own_names, self.bodies[name])}endpackage : {name}\n'


def write(out, paths, includes=()):
    """Writes the Yosys view of `paths` (in dependency order) into directory `out`; returns the files.
    `includes`: further `include files (hw/formal's property sets), their names qualified as in the
    module that includes them."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [pathlib.Path(p) for p in paths]
    texts = [script_args.read_text(p, MAX_SOURCE_BYTES, 'the RTL source') for p in paths]
    packages = Packages(texts)
    written = []
    for path, text in zip(paths, texts):
        text = PACKAGE.sub(lambda m: packages.package_text(m.group(1)), text)
        text = packages.qualify(text, IMPORT.findall(text))
        text = ENUM_CAST.sub('(', text)
        (out / path.name).write_text(text)
        written.append(out / path.name)
    # `include files travel with the sources (those beside them and hw/formal's property sets), the
    # package names in each qualified as in the modules that include it
    beside = {include for path in paths for include in path.parent.glob('*.svh')}
    for include in sorted(beside | set(map(pathlib.Path, includes))):
        imports = {package for text in texts if f'`include "{include.name}"' in text
                   for package in IMPORT.findall(text)}
        text = script_args.read_text(include, MAX_SOURCE_BYTES, 'the include')
        (out / include.name).write_text(packages.qualify(text, imports))
    return written


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    write(sys.argv[1], sys.argv[2:])
