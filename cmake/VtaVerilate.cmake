# vta_verilate(<the arguments of Verilator's verilate()>): verilate() with every path under the source
# tree (RTL sources, -I directories, the waiver file) given relative to the calling directory, where
# Verilator runs. The generated model names the RTL as ../hw/rtl/vta_fetch.sv in its messages (the
# assertion log shows hw/rtl/vta_fetch.sv) and is the same code in every clone of the repository, so
# the compiler cache shares its objects between clones (docs/PERFORMANCE.md, "Test suite").
function(vta_verilate)
  set(args)
  foreach(arg IN LISTS ARGN)
    set(flag "")
    if(arg MATCHES "^-I(/.*)$")
      set(flag "-I")
      set(arg "${CMAKE_MATCH_1}")
    endif()
    if(IS_ABSOLUTE "${arg}")
      cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${arg}" NORMALIZE under_root)
      if(under_root)
        file(RELATIVE_PATH arg "${CMAKE_CURRENT_SOURCE_DIR}" "${arg}")
      endif()
    endif()
    list(APPEND args "${flag}${arg}")
  endforeach()
  verilate(${args})
endfunction()
