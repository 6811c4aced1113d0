# Install rules and the exported CMake package: find_package(Sextant) -> Sextant::sextant.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(_sextant_targets GLOBAL PROPERTY SEXTANT_EXPORTED_TARGETS)
install(TARGETS sextant sextant_warnings ${_sextant_targets} EXPORT SextantTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sextant)
install(TARGETS sextant_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

foreach(_dir core datagen templates cpu gpu scheduler api)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sextant/${_dir}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${SEXTANT_GENERATED_DIR}/core/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sextant/core)

install(EXPORT SextantTargets NAMESPACE Sextant:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sextant)
configure_package_config_file(cmake/SextantConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/SextantConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sextant)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/SextantConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/SextantConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/SextantConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/SextantFindDeps.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sextant)
