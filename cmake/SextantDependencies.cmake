# Third-party dependencies, all from distribution packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)

# PAPI is optional: without it the scheduler reports "counters unavailable".
set(SEXTANT_HAS_PAPI OFF)
pkg_check_modules(PAPI IMPORTED_TARGET papi)
if(PAPI_FOUND)
  set(SEXTANT_HAS_PAPI ON)
endif()

if(SEXTANT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SEXTANT_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
