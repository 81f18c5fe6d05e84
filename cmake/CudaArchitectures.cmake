# Real SASS for the GPUs in this machine, so timings never come from JIT-compiled PTX.
# Without a GPU (CI), a portable list: Ampere, Hopper, Blackwell SASS plus Blackwell PTX for newer parts.
# Hopper builds as 90a (sm_90's own features: wgmma); its SASS runs only on sm_90, as any real SASS does.
# Override with -DCMAKE_CUDA_ARCHITECTURES=... (a Hopper build without 90a skips the wgmma rows, saying why).
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "")
  set(_gpubench_archs "")
  find_program(GPUBENCH_NVIDIA_SMI nvidia-smi)
  if(GPUBENCH_NVIDIA_SMI)
    execute_process(
      COMMAND "${GPUBENCH_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE _caps RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _caps "${_caps}")
      foreach(_cap IN LISTS _caps)
        string(REPLACE "." "" _arch "${_cap}")
        if(_arch STREQUAL "90")
          set(_arch "90a")
        endif()
        list(APPEND _gpubench_archs "${_arch}-real")
      endforeach()
      list(REMOVE_DUPLICATES _gpubench_archs)
    endif()
  endif()
  if(_gpubench_archs)
    message(STATUS "gpubench: building SASS for the GPUs present: ${_gpubench_archs}")
  else()
    set(_gpubench_archs "80-real;90a-real;100-real;100-virtual")
    message(STATUS "gpubench: no GPU detected; building for ${_gpubench_archs}")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${_gpubench_archs}" CACHE STRING "CUDA architectures to build for")
endif()
