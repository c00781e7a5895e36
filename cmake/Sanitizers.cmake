# vta_options: build options shared by every project target (sanitizers from VTA_SANITIZERS).
add_library(vta_options INTERFACE)
if(VTA_SANITIZERS)
  string(REPLACE "," ";" _vta_sanitizer_list "${VTA_SANITIZERS}")
  foreach(_san IN LISTS _vta_sanitizer_list)
    target_compile_options(vta_options INTERFACE -fsanitize=${_san})
    target_link_options(vta_options INTERFACE -fsanitize=${_san})
  endforeach()
  target_compile_options(vta_options INTERFACE -fno-omit-frame-pointer -fno-sanitize-recover=all)
  if(VTA_SANITIZERS MATCHES "fuzzer-no-link")
    # relative to the build tree where Ninja compiles, so that the flag, and the compiler cache's key, is
    # the same in every clone (docs/PERFORMANCE.md, "Test suite")
    set(_ignorelist "${PROJECT_SOURCE_DIR}/fuzz/coverage_ignorelist.txt")
    if(CMAKE_GENERATOR MATCHES "Ninja")
      file(RELATIVE_PATH _ignorelist "${PROJECT_BINARY_DIR}" "${_ignorelist}")
    endif()
    target_compile_options(vta_options INTERFACE -fsanitize-coverage-ignorelist=${_ignorelist})
  endif()
endif()

# vta_glue_optimisation: the optimisation of code that only calls the libraries (the tests, the programs'
# own files, the Python bindings, the examples); what they call keeps the tree's level. In a Release tree
# -O1 (tools/vta-onnx/main.cc: 13.2 s of CPU at -O3, 7.9 s at -O1); in the sanitizer tree -O0 (its
# instrumented -O1 doubles the cost: vta-config 16.6 s, 7.7 s at -O0). vta_test_optimisation: the tests'
# own code at -O0 in every tree (test_network.cc: 12.1 s at -O1, 7.6 s at -O0). docs/PERFORMANCE.md,
# "Test suite".
add_library(vta_glue_optimisation INTERFACE)
if(VTA_SANITIZERS)
  target_compile_options(vta_glue_optimisation INTERFACE -O0)
else()
  target_compile_options(vta_glue_optimisation INTERFACE $<$<CONFIG:Release>:-O1>)
endif()
add_library(vta_test_optimisation INTERFACE)
target_compile_options(vta_test_optimisation INTERFACE -O0)
