# Each dependency is the ecosystem's own installed package; a missing one stops the configure step
# with one message naming what to install.
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR "gpubench: nvcc not found. Install the CUDA Toolkit 13.x (or set CMAKE_CUDA_COMPILER).")
endif()
enable_language(CUDA)

find_package(CUDAToolkit 13 QUIET)
if(NOT CUDAToolkit_FOUND)
  message(FATAL_ERROR "gpubench: CUDA Toolkit 13.x not found (found '${CUDAToolkit_VERSION}'). "
                      "Install the CUDA Toolkit 13.x or set CUDAToolkit_ROOT.")
endif()

if(NOT TARGET CUDA::cupti)
  message(FATAL_ERROR "gpubench: CUPTI not found in the CUDA Toolkit at ${CUDAToolkit_LIBRARY_DIR}. "
                      "Install the toolkit's CUPTI component (e.g. cuda-cupti-dev-13-0).")
endif()

find_package(benchmark QUIET)
if(NOT benchmark_FOUND)
  message(FATAL_ERROR "gpubench: Google Benchmark not found. Install it (Debian: apt-get install libbenchmark-dev) "
                      "or set benchmark_DIR.")
endif()
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${benchmark_VERSION}")
set(GPUBENCH_BENCHMARK_VERSION_MAJOR "${CMAKE_MATCH_1}")
set(GPUBENCH_BENCHMARK_VERSION_MINOR "${CMAKE_MATCH_2}")
message(STATUS "gpubench: Google Benchmark ${benchmark_VERSION}, CUDA ${CUDAToolkit_VERSION}")

# The JSON report is built as data (Google Benchmark's rows parsed, gpubench's fields added, written back).
find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "gpubench: nlohmann/json not found. Install it (Debian: apt-get install nlohmann-json3-dev) "
                      "or set nlohmann_json_DIR.")
endif()

if(BUILD_TESTING OR NOT DEFINED BUILD_TESTING)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    message(FATAL_ERROR "gpubench: GoogleTest not found. Install it (Debian: apt-get install libgtest-dev) "
                        "or configure with -DBUILD_TESTING=OFF.")
  endif()
endif()
