// The facts of this build tree that vta-sweep needs, compiled with them (sweep/CMakeLists.txt): the other
// files of the library read them here, so their objects are the same in every tree.
#include "build_facts.h"

namespace vta::sweep {

const BuildFacts kBuild{VTA_SOURCE_DIR, VTA_BINARY_DIR, VTA_PYTHON3, VTA_TSIM_COVERAGE_BUILD};

}  // namespace vta::sweep
