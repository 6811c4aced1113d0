# Common compile settings for Sextant's own C++ targets.
add_library(sextant_warnings INTERFACE)
target_compile_options(sextant_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)

# Hot CPU code is compiled once per instruction set it has a variant for: the x86-64 baseline,
# x86-64-v3 (AVX2, FMA, BMI2) and, where written, AVX-512 (F, BW, DQ, VL); core/cpu_features.hpp
# says which the running CPU has, and the scheduler (or cpu/simd/isa.hpp) picks one.
set(SEXTANT_AVX2_FLAGS -mavx2 -mfma -mbmi -mbmi2 -mlzcnt -mpopcnt -mf16c)
set(SEXTANT_AVX512_FLAGS ${SEXTANT_AVX2_FLAGS} -mavx512f -mavx512bw -mavx512dq -mavx512vl)
# GCC 12's AVX-512 intrinsics pass self-initialised "undefined" vectors, which its own
# -Wmaybe-uninitialized reports at every use (GCC bug 105593, fixed in GCC 13).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND SEXTANT_AVX512_FLAGS -Wno-maybe-uninitialized)
endif()

# A library target of one folder; its headers are found as SextantHeaders.cmake describes.
include(SextantHeaders)
function(sextant_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  add_library(${name} ${ARG_SOURCES})
  sextant_target_includes(${name})
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS} PRIVATE sextant_warnings ${ARG_PRIVATE_DEPENDS})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY SEXTANT_EXPORTED_TARGETS ${name})
endfunction()
