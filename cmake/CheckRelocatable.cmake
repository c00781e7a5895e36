# cmake -DSOURCE_DIR=... -DBINARY_DIR=... -P CheckRelocatable.cmake: fails when a file the compiler hashes
# names where this clone is (test Build.ObjectsAreSharedBetweenClones). The compiler cache shares an
# object between clones in different folders only when the files it reads are the same text there:
# the unity files (cmake/VtaUnity.cmake) must include their sources by relative paths, and the
# generated configuration header and package must name the configuration relative to the source tree.
foreach(var SOURCE_DIR BINARY_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "CheckRelocatable.cmake: -D${var}=... is required")
  endif()
endforeach()
file(GLOB_RECURSE unity_files LIST_DIRECTORIES false "${BINARY_DIR}/unity_*")
# (ours, and CMake's own in CMakeFiles/<target>.dir/Unity: a target vta_relocatable_unity missed)
list(FILTER unity_files INCLUDE REGEX "/(unity/[^/]+|Unity)/unity_[^/]*\\.(cxx|c)$")
set(bad)
foreach(f IN LISTS unity_files)
  file(STRINGS "${f}" lines REGEX "^#include \"/")
  if(lines)
    list(APPEND bad "${f}")
  endif()
endforeach()
if(bad)
  list(JOIN bad "\n  " bad)
  message(FATAL_ERROR "unity files that include their sources by absolute paths (a clone elsewhere "
                      "compiles them again):\n  ${bad}")
endif()
foreach(generated "${BINARY_DIR}/generated/include/vta/hw_config.h" "${BINARY_DIR}/generated/hw/vta_config_pkg.sv")
  file(STRINGS "${generated}" first LIMIT_COUNT 1)
  string(FIND "${first}" "${SOURCE_DIR}/" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${generated} names the clone's folder: ${first}")
  endif()
endforeach()
list(LENGTH unity_files n)
message(STATUS "${n} unity files include their sources relatively; the generated configuration names "
               "config/... relatively")
