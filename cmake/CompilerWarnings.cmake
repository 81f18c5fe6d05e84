option(GPUBENCH_PTXAS_VERBOSE "Print ptxas register/spill reports (-Xptxas -v)" OFF)

# Warnings for host and device code; -lineinfo so compute-sanitizer and ncu can name source lines.
function(gpubench_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra -lineinfo --Werror=all-warnings>)
  if(GPUBENCH_PTXAS_VERBOSE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-v>)
  endif()
endfunction()
