# The CMake package a user's own kernels are measured with (docs/your-kernel.md):
#   find_package(gpubench 0.1 REQUIRED)
#   add_executable(mybench mybench.cu)
#   target_link_libraries(mybench PRIVATE gpubench::main)
# gpubench::harness is the measuring library (public headers: include/gpubench/gpubench.h and common/*.h);
# gpubench::main adds gpubench's main (options, presets, node runs, JSON, card, verdict). From a build tree
# (add_subdirectory, FetchContent) the same two names are aliases.
include(CMakePackageConfigHelpers)

# Consumers see the public headers only: <gpubench/gpubench.h> and "common/<header>.h".
gpubench_make_view(user PUBLIC_COMMON)
file(CREATE_LINK "${PROJECT_SOURCE_DIR}/include/gpubench" "${GPUBENCH_VIEWS_DIR}/user/gpubench" SYMBOLIC)
target_include_directories(gpubench_common INTERFACE
  "$<BUILD_INTERFACE:${GPUBENCH_VIEWS_DIR}/user>"
  "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/gpubench>"
  "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
set_target_properties(gpubench_common PROPERTIES EXPORT_NAME harness)
set_target_properties(gpubench_main PROPERTIES EXPORT_NAME main)
add_library(gpubench::harness ALIAS gpubench_common)
add_library(gpubench::main ALIAS gpubench_main)

install(TARGETS gpubench_common gpubench_main EXPORT gpubenchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
file(GLOB gpubench_public_headers "${PROJECT_SOURCE_DIR}/common/*.h")
install(FILES ${gpubench_public_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpubench/common)
install(FILES include/gpubench/gpubench.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpubench)
# Compiled into the user's binary: where the installed package's card scripts are, wherever it was moved to.
install(FILES cmake/package_paths.cpp DESTINATION ${CMAKE_INSTALL_DATADIR}/gpubench)

set(gpubench_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/gpubench")
install(EXPORT gpubenchTargets NAMESPACE gpubench:: DESTINATION "${gpubench_cmake_dir}")
configure_package_config_file(cmake/gpubenchConfig.cmake.in "${CMAKE_BINARY_DIR}/gpubenchConfig.cmake"
                              INSTALL_DESTINATION "${gpubench_cmake_dir}"
                              PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/gpubenchConfigVersion.cmake"
                                 VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/gpubenchConfig.cmake" "${CMAKE_BINARY_DIR}/gpubenchConfigVersion.cmake"
        DESTINATION "${gpubench_cmake_dir}")
