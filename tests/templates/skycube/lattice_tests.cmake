# STSC / SDSC on the CPU and their hooks. The second entry reruns the whole binary on the scalar
# kernels (SEXTANT_SIMD=scalar), which a process cannot switch to once it has picked AVX2.
sextant_test(stsc_sdsc_tests SOURCES stsc_sdsc_test.cpp LIBS sextant_api sextant_datagen)
add_test(NAME stsc_sdsc_scalar COMMAND stsc_sdsc_tests)
set_tests_properties(stsc_sdsc_scalar PROPERTIES
  ENVIRONMENT "SEXTANT_SIMD=scalar;SEXTANT_SOURCE_DIR=${PROJECT_SOURCE_DIR}" LABELS "scalar")
