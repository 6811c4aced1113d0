# Common compile settings for Sextant's own C++ targets.
add_library(sextant_warnings INTERFACE)
target_compile_options(sextant_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)

# Hot CPU code is compiled twice: once for x86-64-v3 (AVX2, FMA, BMI2) and once for the
# x86-64 baseline; core/cpu_features.hpp picks one at run time.
set(SEXTANT_AVX2_FLAGS -mavx2 -mfma -mbmi -mbmi2 -mlzcnt -mpopcnt -mf16c)

# Puts a library's headers at <folder>/<file>.hpp, both in the tree and installed.
function(sextant_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  add_library(${name} ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${SEXTANT_GENERATED_DIR}>
    $<INSTALL_INTERFACE:include/sextant>)
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS} PRIVATE sextant_warnings ${ARG_PRIVATE_DEPENDS})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY SEXTANT_EXPORTED_TARGETS ${name})
endfunction()
