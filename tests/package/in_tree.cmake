# Package checks inside Sextant's own build (tests/CMakeLists.txt includes this file); the consumer
# of the installed package is this folder's CMakeLists.txt, which scripts/test.sh builds.

# Every umbrella header compiles alone through the build tree's <sextant/...> paths, and a header
# included under both of its names is one file.
set(SEXTANT_UMBRELLA_CHECKS
  ${CMAKE_CURRENT_LIST_DIR}/umbrella_skycube.cpp ${CMAKE_CURRENT_LIST_DIR}/umbrella_window.cpp
  ${CMAKE_CURRENT_LIST_DIR}/umbrella_scheduler.cpp ${CMAKE_CURRENT_LIST_DIR}/umbrella_datagen.cpp
  ${CMAKE_CURRENT_LIST_DIR}/umbrella_sextant.cpp ${CMAKE_CURRENT_LIST_DIR}/build_tree_paths.cpp
  ${CMAKE_CURRENT_LIST_DIR}/umbrella_window_custom.cpp ${CMAKE_CURRENT_LIST_DIR}/umbrella_pipeline.cpp)
add_library(sextant_umbrella_checks OBJECT ${SEXTANT_UMBRELLA_CHECKS})
target_sources(sextant_umbrella_checks PRIVATE ${CMAKE_CURRENT_LIST_DIR}/umbrella_matching.cpp)
target_link_libraries(sextant_umbrella_checks PRIVATE sextant sextant_warnings)
# <sextant/testing.hpp> needs GoogleTest: through Sextant::testing, as a user's test would.
add_library(sextant_umbrella_testing_check OBJECT ${CMAKE_CURRENT_LIST_DIR}/umbrella_testing.cpp)
target_link_libraries(sextant_umbrella_testing_check PRIVATE Sextant::testing sextant_warnings)

# Installs this build into a scratch prefix and checks what lands there (check_install.cmake).
add_test(NAME package_install_layout
  COMMAND ${CMAKE_COMMAND} -DSEXTANT_BUILD_DIR=${PROJECT_BINARY_DIR}
          -DSEXTANT_SOURCE_DIR=${PROJECT_SOURCE_DIR} -DSEXTANT_GENERATED_DIR=${SEXTANT_GENERATED_DIR}
          -DSEXTANT_PREFIX=${CMAKE_CURRENT_BINARY_DIR}/package_install_check
          -P ${CMAKE_CURRENT_LIST_DIR}/check_install.cmake)
set_tests_properties(package_install_layout PROPERTIES LABELS package)
