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

# vta_verilated_unity(TARGET): compiles the Verilated models of TARGET as a few translation units each
# (Verilator's own __ALL.cpp grouping, with its construction-time __Slow files apart from the
# evaluation code), instead of file by file: each of the many small generated files re-reads
# Verilator's headers, which costs more than compiling them (docs/PERFORMANCE.md, "Test suite").
function(vta_verilated_unity target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  get_target_property(sources ${target} SOURCES)
  foreach(src IN LISTS sources)
    if(src MATCHES "/(V[A-Za-z0-9_]+)\\.dir/[^/]+\\.cpp$")
      set(group ${CMAKE_MATCH_1})
      if(src MATCHES "__Slow\\.cpp$")
        string(APPEND group _slow)
      endif()
      set_source_files_properties("${src}" PROPERTIES UNITY_GROUP ${group})
    endif()
  endforeach()
endfunction()
