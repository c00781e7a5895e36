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

# vta_verilated_unity(TARGET): compiles the evaluation code of TARGET's Verilated models as a few
# translation units each (Verilator's own __ALL.cpp grouping) instead of file by file: each of the many
# small generated files re-reads Verilator's headers, which costs more than compiling them. The
# construction-time __Slow files (run once per model: the constructor, the initial values, the trace
# and coverage declarations) are compiled without optimisation, as Verilator's own makefile does
# (OPT_SLOW), and also one translation unit per model: an object library of their own (TARGET_slow),
# since a unity file takes its options from its target. At -O3 in one translation unit the coverage
# model's took 280 s of one core; file by file at -O0 the hardware harnesses' 71 took 118 s of CPU, as
# one file per model about 45 s (docs/PERFORMANCE.md, "Test suite").
function(vta_verilated_unity target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  get_target_property(sources ${target} SOURCES)
  set(slow)
  foreach(src IN LISTS sources)
    if(src MATCHES "/(V[A-Za-z0-9_]+)\\.dir/[^/]+\\.cpp$")
      set_source_files_properties("${src}" PROPERTIES UNITY_GROUP ${CMAKE_MATCH_1})
      if(src MATCHES "__Slow\\.cpp$")
        list(APPEND slow "${src}")
      endif()
    endif()
  endforeach()
  if(NOT slow)
    return()
  endif()
  list(REMOVE_ITEM sources ${slow})
  set_property(TARGET ${target} PROPERTY SOURCES ${sources})
  add_library(${target}_slow OBJECT ${slow})
  # what verilate() gave the target (the model's and Verilator's include directories, VM_* definitions,
  # the libraries whose usage requirements it compiles with), then no optimisation
  foreach(prop INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FEATURES)
    get_target_property(value ${target} ${prop})
    if(value)
      set_property(TARGET ${target}_slow PROPERTY ${prop} "${value}")
    endif()
  endforeach()
  get_target_property(libs ${target} LINK_LIBRARIES)
  if(libs)
    target_link_libraries(${target}_slow PRIVATE ${libs})
  endif()
  target_compile_options(${target}_slow PRIVATE -O0)
  set_target_properties(${target}_slow PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:${target}_slow>)
endfunction()
