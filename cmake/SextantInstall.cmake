# Install rules and the exported CMake package: find_package(Sextant) -> Sextant::sextant, and
# find_package(Sextant COMPONENTS testing) -> Sextant::testing as well.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(_sextant_targets GLOBAL PROPERTY SEXTANT_EXPORTED_TARGETS)
install(TARGETS sextant sextant_warnings ${_sextant_targets} EXPORT SextantTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET sextant_cli)
  install(TARGETS sextant_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# Only the public headers: the umbrellas of include/sextant/ and what they include, computed when
# installing, with internal includes rewritten to "sextant/..." (SextantPublicHeaders.cmake).
install(CODE "
  set(SEXTANT_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
  set(SEXTANT_GENERATED_DIR \"${SEXTANT_GENERATED_DIR}\")
  set(SEXTANT_STAGING_DIR \"${CMAKE_CURRENT_BINARY_DIR}/installed_headers\")
  set(SEXTANT_INCLUDE_DIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  include(\"${PROJECT_SOURCE_DIR}/cmake/SextantInstallHeaders.cmake\")")

install(EXPORT SextantTargets NAMESPACE Sextant:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sextant)
# Sextant::testing in a file of its own, which the package configuration loads only for
# find_package(Sextant COMPONENTS testing): it links GTest::gtest, which no other consumer needs.
install(TARGETS sextant_testing EXPORT SextantTestingTargets INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT SextantTestingTargets NAMESPACE Sextant:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sextant)
configure_package_config_file(cmake/SextantConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/SextantConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sextant)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/SextantConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/SextantConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/SextantConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/SextantFindDeps.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sextant)
