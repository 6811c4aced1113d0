# cmake -DSEXTANT_BUILD_DIR=... -DSEXTANT_SOURCE_DIR=... -DSEXTANT_GENERATED_DIR=... -DSEXTANT_PREFIX=...
#       -P check_install.cmake
# Installs a built Sextant into a scratch prefix and checks the package: exactly the public headers
# (the umbrellas and what they include) under include/sextant/, none of the internal ones, every
# internal include rewritten to "sextant/...", and no trace of PAPI in the package configuration or
# in what the installed command links.
cmake_minimum_required(VERSION 3.25)
include("${SEXTANT_SOURCE_DIR}/cmake/SextantPublicHeaders.cmake")

set(failures "")
macro(fail text)
  string(APPEND failures "  ${text}\n")
endmacro()

file(REMOVE_RECURSE "${SEXTANT_PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${SEXTANT_BUILD_DIR}" --prefix "${SEXTANT_PREFIX}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}")
endif()

# The installed headers are exactly the public set.
sextant_public_headers(public "${SEXTANT_SOURCE_DIR}" "${SEXTANT_GENERATED_DIR}")
set(expected "")
foreach(entry IN LISTS public)
  string(REGEX REPLACE "\\|.*$" "" name "${entry}")
  list(APPEND expected "${name}")
endforeach()
file(GLOB_RECURSE installed RELATIVE "${SEXTANT_PREFIX}/include" "${SEXTANT_PREFIX}/include/*")
list(SORT installed)
foreach(name IN LISTS expected)
  if(NOT name IN_LIST installed)
    fail("public header not installed: ${name}")
  endif()
endforeach()
foreach(name IN LISTS installed)
  if(NOT name IN_LIST expected)
    fail("installed but not public: ${name}")
  endif()
endforeach()

# The umbrellas and the build configuration are there; implementation headers are not.
foreach(name sextant/skycube.hpp sextant/window.hpp sextant/scheduler.hpp sextant/datagen.hpp
             sextant/sextant.hpp sextant/core/config.hpp sextant/api/skycube.hpp sextant/api/skyline.hpp
             sextant/window_custom.hpp
             sextant/templates/skycube/hooks.hpp sextant/templates/window/stream_hooks.hpp
             sextant/testing.hpp sextant/testing/cuboid_conformance.hpp
             sextant/testing/stream_aggregate_conformance.hpp)
  if(NOT name IN_LIST installed)
    fail("missing: ${name}")
  endif()
endforeach()
# The CPU stream backend (sextant/cpu/window/) is the exception: <sextant/window_custom.hpp>
# instantiates it for a user-defined aggregate, kernels included.
foreach(name IN LISTS installed)
  if(name MATCHES "^sextant/cpu/window/")
    continue()
  endif()
  if(name MATCHES "\\.cuh$|_impl\\.hpp$|_kernel\\.hpp$|^sextant/api/backends\\.hpp$|^sextant/api/skycube_devices\\.hpp$|papi_library\\.hpp$")
    fail("internal header installed: ${name}")
  endif()
endforeach()

# Installed headers need only include/ on the path: no include names a top-level folder.
list(JOIN SEXTANT_HEADER_FOLDERS "|" folders)
foreach(name IN LISTS installed)
  file(STRINGS "${SEXTANT_PREFIX}/include/${name}" lines REGEX "#[ \t]*include[ \t]*[\"<](${folders})/")
  foreach(line IN LISTS lines)
    fail("${name} still includes from the project root: ${line}")
  endforeach()
endforeach()

# PAPI is loaded at run time: the package does not look for it, nothing links it.
file(GLOB_RECURSE config_files "${SEXTANT_PREFIX}/lib*/cmake/Sextant/*.cmake")
if(NOT config_files)
  fail("no package configuration installed")
endif()
# Sextant::testing has a targets file of its own, loaded only for COMPONENTS testing.
if(NOT config_files MATCHES "SextantTestingTargets\\.cmake")
  fail("no SextantTestingTargets.cmake (Sextant::testing) installed")
endif()
foreach(file IN LISTS config_files)
  file(STRINGS "${file}" lines REGEX "^[^#]*[Pp][Aa][Pp][Ii]")  # code, not comments
  foreach(line IN LISTS lines)
    fail("${file} mentions PAPI: ${line}")
  endforeach()
endforeach()
find_program(READELF readelf)
if(READELF)
  execute_process(COMMAND ${READELF} -d "${SEXTANT_PREFIX}/bin/sextant" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    fail("readelf -d ${SEXTANT_PREFIX}/bin/sextant failed")
  elseif(dynamic MATCHES "libpapi")
    fail("bin/sextant links libpapi")
  endif()
endif()

if(failures)
  message(FATAL_ERROR "installed package in ${SEXTANT_PREFIX}:\n${failures}")
endif()
list(LENGTH installed count)
message(STATUS "installed package: ${count} public headers, no internal header, no PAPI")
