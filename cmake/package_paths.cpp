// Compiled into a binary built against the installed gpubench package (cmake/gpubenchConfig.cmake.in): where that
// package's card and verdict scripts are (share/gpubench/analysis), found from the package's own location.
extern "C" const char* gpubench_package_analysis_dir() { return GPUBENCH_PACKAGE_ANALYSIS_DIR; }
