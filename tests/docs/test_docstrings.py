#!/usr/bin/python3
"""ctest Docs.EveryPublicPythonNameIsDocumented: every public name of the vta package (vta.__all__,
vta.network.__all__) and every public method and property of its classes has a docstring that says more
than pybind11's generated signature, so the Python reference (docs/api/python.rst, autodoc) documents it.
A new public name without one fails, naming it.
"""
import inspect
import sys

import vta
import vta.network

def documented(obj):
    """A docstring of its own (a class's is not inherited: an exception does not count ValueError's) with a
    line that is not pybind11's signature line ("name(arg: type) -> type")."""
    doc = (vars(obj).get("__doc__") or "") if inspect.isclass(obj) else (inspect.getdoc(obj) or "")
    lines = [l for l in doc.splitlines() if l.strip()]
    return any(not (l.split("(")[0].strip().isidentifier() and "->" in l) for l in lines)


def public_names():
    for module in (vta, vta.network):
        for name in module.__all__:
            obj = getattr(module, name)
            yield f"{module.__name__}.{name}", obj
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if not member.startswith("_") and not isinstance(value, (int, str)):
                        yield f"{module.__name__}.{name}.{member}", value


def main():
    names = list(public_names())
    missing = [name for name, obj in names if not documented(obj)]
    for name in missing:
        print(f"{name}: no docstring (a public name: say what it is for and what it raises)", file=sys.stderr)
    print(f"{len(names) - len(missing)} of {len(names)} public names documented")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
