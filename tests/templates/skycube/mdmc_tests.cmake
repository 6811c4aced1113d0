# MDMC: quad tree invariants, conformance against the reference skycube (Mdmc.EveryVariantConforms:
# every variant this CPU has, through the same body), and the front door's cases again with the
# set capped at scalar and at AVX2 (the choice among what remains, the extended skyline's scalar
# code).
set(SEXTANT_MDMC_CAPPED_CASES
  "Mdmc.Nba:Mdmc.TieHeavyLarge:Mdmc.HeavyTiesAndDuplicatesAllLevels:Mdmc.HighDimensional:Mdmc.SerialTeamAndTinyChunks:Mdmc.MemoIsNotKeyedByLeAlone:MdmcCpu.*:QuadTree.*")
sextant_test(mdmc_tests SOURCES mdmc_test.cpp quad_tree_test.cpp LIBS sextant_api sextant_datagen)
add_test(NAME mdmc_tests_scalar COMMAND mdmc_tests --gtest_filter=${SEXTANT_MDMC_CAPPED_CASES})
set_tests_properties(mdmc_tests_scalar PROPERTIES
  ENVIRONMENT "SEXTANT_SIMD=scalar;SEXTANT_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
# (Not on the sanitizer build, where AVX2 is the default choice of the CI machines.)
if(NOT SEXTANT_SANITIZE)
  add_test(NAME mdmc_tests_avx2 COMMAND mdmc_tests --gtest_filter=${SEXTANT_MDMC_CAPPED_CASES})
  set_tests_properties(mdmc_tests_avx2 PROPERTIES
    ENVIRONMENT "SEXTANT_SIMD=avx2;SEXTANT_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endif()
