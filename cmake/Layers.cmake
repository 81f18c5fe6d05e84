# Include rules by layer. A target sees the source tree only through its view: a folder in the build
# tree holding links to what its layer may include, so a wrong include is a compile error.
#   kernels/ -> common/ (public headers)
#   common/  -> common/ (public, detail/, cupti/)
#   bench/   -> common/ (public headers), kernels/, bench/
#   app/     -> common/ (all), app/
#   test/    -> everything
set(GPUBENCH_VIEWS_DIR "${CMAKE_BINARY_DIR}/include-views")

function(_gpubench_view_add_public_common view_dir)
  file(GLOB headers RELATIVE "${PROJECT_SOURCE_DIR}/common" CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/common/*.h" "${PROJECT_SOURCE_DIR}/common/*.cuh")
  file(MAKE_DIRECTORY "${view_dir}/common")
  foreach(header IN LISTS headers)
    file(CREATE_LINK "${PROJECT_SOURCE_DIR}/common/${header}" "${view_dir}/common/${header}" SYMBOLIC)
  endforeach()
endfunction()

# gpubench_make_view(<name> [PUBLIC_COMMON] [FOLDERS folder...]): the view's include root.
function(gpubench_make_view name)
  cmake_parse_arguments(PARSE_ARGV 1 VIEW "PUBLIC_COMMON" "" "FOLDERS")
  set(view_dir "${GPUBENCH_VIEWS_DIR}/${name}")
  file(REMOVE_RECURSE "${view_dir}")  # links to removed files must not linger
  file(MAKE_DIRECTORY "${view_dir}")
  if(VIEW_PUBLIC_COMMON)
    _gpubench_view_add_public_common("${view_dir}")
  endif()
  foreach(folder IN LISTS VIEW_FOLDERS)
    file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${folder}" "${view_dir}/${folder}" SYMBOLIC)
  endforeach()
endfunction()

gpubench_make_view(kernels PUBLIC_COMMON FOLDERS kernels)
gpubench_make_view(common FOLDERS common)
gpubench_make_view(bench PUBLIC_COMMON FOLDERS kernels bench)
gpubench_make_view(app FOLDERS common app)

# gpubench_use_view(<target> <view>): the target's sources include through that view only.
function(gpubench_use_view target view)
  if(view STREQUAL "test")
    target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}")
  else()
    target_include_directories(${target} PRIVATE "${GPUBENCH_VIEWS_DIR}/${view}")
  endif()
endfunction()

# Every kernels/ header compiled on its own through the kernels view: a header that reaches into
# bench/, test/ or common's internals fails the build (for one architecture: the check is the
# preprocessor's, not the code generator's).
function(gpubench_check_kernel_headers)
  file(GLOB_RECURSE headers RELATIVE "${PROJECT_SOURCE_DIR}" CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/kernels/*.cuh" "${PROJECT_SOURCE_DIR}/kernels/*.h")
  set(sources "")
  foreach(header IN LISTS headers)
    string(MAKE_C_IDENTIFIER "${header}" id)
    set(source "${CMAKE_BINARY_DIR}/header-check/${id}.cu")
    file(CONFIGURE OUTPUT "${source}" CONTENT "#include \"${header}\"\n")
    list(APPEND sources "${source}")
  endforeach()
  add_library(gpubench_kernel_headers OBJECT ${sources})
  list(GET CMAKE_CUDA_ARCHITECTURES 0 first_arch)
  set_target_properties(gpubench_kernel_headers PROPERTIES CUDA_ARCHITECTURES "${first_arch}")
  gpubench_use_view(gpubench_kernel_headers kernels)
  gpubench_warnings(gpubench_kernel_headers)
endfunction()
