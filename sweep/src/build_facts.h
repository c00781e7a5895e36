#pragma once
// Inside vta-sweep's library (internal.h includes it): the facts of the build tree, apart so that the one
// file compiled with them (build_facts.cc) reads nothing else; a tree of another configuration or folder
// recompiles that file alone, the rest comes from the compiler cache.

namespace vta::sweep {

/// Where this build came from and what it is (build_facts.cc).
struct BuildFacts {
  const char* source_dir;  ///< the source tree this build was made from
  const char* binary_dir;  ///< this build tree
  const char* python3;     ///< the interpreter of the charts (sweep/charts.py)
  bool tsim_coverage;      ///< this build's tsim counts coverage (VTA_TSIM_COVERAGE)
};
extern const BuildFacts kBuild;

}  // namespace vta::sweep
