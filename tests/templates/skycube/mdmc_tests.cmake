# MDMC: quad tree invariants, conformance against the reference skycube (AVX2 where the CPU has
# it) and the same binary again forced onto the scalar fallback.
sextant_test(mdmc_tests SOURCES mdmc_test.cpp quad_tree_test.cpp LIBS sextant_cpu sextant_datagen)
add_test(NAME mdmc_tests_scalar COMMAND mdmc_tests)
set_tests_properties(mdmc_tests_scalar PROPERTIES
  ENVIRONMENT "SEXTANT_SIMD=scalar;SEXTANT_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
