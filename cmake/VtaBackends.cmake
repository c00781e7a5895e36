# vta_link_backends(TARGET): links every clocked backend this build makes (the tsim, SystemC) and the
# board backend into a program, so that VTA_TARGET / --target can name them: each registers itself
# when linked.
function(vta_link_backends target)
  target_link_libraries(${target} PRIVATE vta::board)
  if(VTA_BUILD_TSIM)
    target_link_libraries(${target} PRIVATE vta::tsim)
  endif()
  if(VTA_BUILD_SYSTEMC)
    target_link_libraries(${target} PRIVATE vta::systemc)
  endif()
endfunction()
