# vta_warnings: the warning set every project target links (PRIVATE).
add_library(vta_warnings INTERFACE)
target_compile_options(vta_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual -Wpedantic
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough -Wmisleading-indentation)
if(VTA_WARNINGS_AS_ERRORS)
  target_compile_options(vta_warnings INTERFACE -Werror)
endif()
