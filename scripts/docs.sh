#!/usr/bin/env bash
# Builds the documentation site (docs/SITE.md) into BUILD/docs/html: sets up what it needs (Debian
# packages), configures and builds what the tutorials run (the Python package, the vta command, the
# device server, the ONNX importer), then Sphinx with every tutorial executed.
# Usage: scripts/docs.sh [BUILD_DIR]      (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release --target vta_docs
echo "docs: open $build/docs/html/index.html"
