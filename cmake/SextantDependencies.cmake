# Third-party dependencies, all from distribution packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
include(SextantFindDeps)
if(NOT TARGET SextantDeps::hwloc)
  message(FATAL_ERROR "hwloc not found (hwloc.h and libhwloc): run scripts/setup.sh or install libhwloc-dev")
endif()

# PAPI is optional: without it the scheduler reports "counters unavailable".
set(SEXTANT_HAS_PAPI OFF)
if(TARGET SextantDeps::papi)
  set(SEXTANT_HAS_PAPI ON)
endif()

if(SEXTANT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SEXTANT_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
