# Generates, from the one configuration file VTA_CONFIG, the C header vta/hw_config.h (reference VTA_*
# macro names) and the SystemVerilog package vta_config_pkg.sv. The generator is the vta-config tool,
# which validates the file with the same C++ library the driver uses.
set(VTA_GENERATED_DIR "${PROJECT_BINARY_DIR}/generated")
set(VTA_GENERATED_HEADER "${VTA_GENERATED_DIR}/include/vta/hw_config.h")
set(VTA_GENERATED_SV_PACKAGE "${VTA_GENERATED_DIR}/hw/vta_config_pkg.sv")

# Generates the artifacts while configuring, with a bootstrap build of vta-config from the same
# sources: verilate() runs Verilator at configure time and needs the package to exist already. It
# compiles through the project's compiler cache too: 13 s of every new tree's configure otherwise
# (a clone's test command configures seven), and unoptimised (it runs once, on one small file: its
# main.cc compiles in 5.3 s of CPU instead of 11.0 s at -O3, while the configure waits for it).
# The configuration as vta-config is given it, run in the source tree: relative to the source tree when
# it is in it, so the generated files, whose first line names it, are the same text in every clone (the
# compiler cache then shares what includes them, result_cache.py the syntheses that read the package).
function(_vta_config_argument out)
  get_filename_component(path "${VTA_CONFIG}" ABSOLUTE)  # (a relative one: as CMake read it, from here)
  cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${path}" NORMALIZE under_root)
  if(under_root)
    file(RELATIVE_PATH path "${PROJECT_SOURCE_DIR}" "${path}")
  endif()
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

function(vta_bootstrap_config_artifacts)
  set(boot "${PROJECT_BINARY_DIR}/vta-config-bootstrap")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S "${PROJECT_SOURCE_DIR}/cmake/bootstrap" -B "${boot}" -G "${CMAKE_GENERATOR}"
            -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
            "-DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}"
            "-DVTA_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
    RESULT_VARIABLE rc OUTPUT_QUIET)
  if(rc EQUAL 0)
    execute_process(COMMAND ${CMAKE_COMMAND} --build "${boot}" RESULT_VARIABLE rc OUTPUT_QUIET)
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building the configuration generator failed (see ${boot})")
  endif()
  file(MAKE_DIRECTORY "${VTA_GENERATED_DIR}/include/vta" "${VTA_GENERATED_DIR}/hw")
  _vta_config_argument(config)
  execute_process(
    COMMAND "${boot}/vta-config" --config "${config}" --c-header "${VTA_GENERATED_HEADER}"
            --sv-package "${VTA_GENERATED_SV_PACKAGE}"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "VTA_CONFIG=${VTA_CONFIG} is not a valid configuration:\n${err}")
  endif()
endfunction()

function(vta_generate_config_artifacts)
  _vta_config_argument(config)
  add_custom_command(
    OUTPUT "${VTA_GENERATED_HEADER}" "${VTA_GENERATED_SV_PACKAGE}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${VTA_GENERATED_DIR}/include/vta" "${VTA_GENERATED_DIR}/hw"
    COMMAND vta-config --config "${config}" --c-header "${VTA_GENERATED_HEADER}"
            --sv-package "${VTA_GENERATED_SV_PACKAGE}"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    DEPENDS vta-config "${VTA_CONFIG}"
    COMMENT "Generating VTA configuration header and SystemVerilog package from ${VTA_CONFIG}"
    VERBATIM)
  add_custom_target(vta_generate_config DEPENDS "${VTA_GENERATED_HEADER}" "${VTA_GENERATED_SV_PACKAGE}")
  # vta::hw_config: include path of the generated header (C and C++ users of vta/hw_spec.h).
  add_library(vta_hw_config INTERFACE)
  add_library(vta::hw_config ALIAS vta_hw_config)
  target_include_directories(vta_hw_config INTERFACE "${VTA_GENERATED_DIR}/include")
  add_dependencies(vta_hw_config vta_generate_config)
endfunction()
