# STSC / SDSC on the CPU and their hooks. Every cuboid variant runs the conformance bodies in
# cuboid_variants_tests; the second entry reruns the cases that reach the kernels without a variant
# list (the extended skyline, the front door's choice) on the scalar code (SEXTANT_SIMD=scalar),
# which a process cannot switch to once it has picked AVX2.
sextant_test(stsc_sdsc_tests SOURCES stsc_sdsc_test.cpp LIBS sextant_api sextant_datagen)
add_test(NAME stsc_sdsc_scalar COMMAND stsc_sdsc_tests
  --gtest_filter=StscSdscTest.SimdLevelFollowsEnvironment:StscSdscTest.ExtendedSkyline*:StscSdscTest.*Nba:StscSdscTest.*TieHeavyLarge:StscSdscTest.SequentialCuboidMatchesBruteForce:StscSdscTest.ParallelCuboidInsideParallelRegion:StscSdscTest.RoundedEqualScoresStillDominate)
set_tests_properties(stsc_sdsc_scalar PROPERTIES
  ENVIRONMENT "SEXTANT_SIMD=scalar;SEXTANT_SOURCE_DIR=${PROJECT_SOURCE_DIR}" LABELS "scalar")
