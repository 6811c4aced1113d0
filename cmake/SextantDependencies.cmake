# Third-party dependencies, all from distribution packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
include(SextantFindDeps)
if(NOT TARGET SextantDeps::hwloc)
  message(FATAL_ERROR "hwloc not found (hwloc.h and libhwloc): run scripts/setup.sh or install libhwloc-dev")
endif()

# PAPI is optional and never linked: papi.h (types and constants) is used when present at build
# time, and the scheduler loads libpapi at run time (dlopen); where it cannot, counters report
# "counters unavailable: <why>" and the run goes on.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(_sextant_pc_papi QUIET papi)
endif()
find_path(SEXTANT_PAPI_INCLUDE_DIR papi.h HINTS ${_sextant_pc_papi_INCLUDE_DIRS})
set(SEXTANT_HAS_PAPI OFF)
if(SEXTANT_PAPI_INCLUDE_DIR)
  set(SEXTANT_HAS_PAPI ON)
endif()

if(SEXTANT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SEXTANT_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
