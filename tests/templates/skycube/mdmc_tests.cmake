# MDMC: quad tree invariants, conformance against the reference skycube (every variant this CPU
# has) and the same binary again forced onto the scalar and the AVX2 variants.
sextant_test(mdmc_tests SOURCES mdmc_test.cpp quad_tree_test.cpp LIBS sextant_api sextant_datagen)
add_test(NAME mdmc_tests_scalar COMMAND mdmc_tests)
set_tests_properties(mdmc_tests_scalar PROPERTIES
  ENVIRONMENT "SEXTANT_SIMD=scalar;SEXTANT_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
add_test(NAME mdmc_tests_avx2 COMMAND mdmc_tests --gtest_filter=Mdmc.*)
set_tests_properties(mdmc_tests_avx2 PROPERTIES
  ENVIRONMENT "SEXTANT_SIMD=avx2;SEXTANT_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
