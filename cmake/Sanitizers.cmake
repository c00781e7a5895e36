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
    target_compile_options(vta_options INTERFACE
                           -fsanitize-coverage-ignorelist=${PROJECT_SOURCE_DIR}/fuzz/coverage_ignorelist.txt)
  endif()
endif()
