# Where Sextant's headers are found, in the build tree and installed.
#
# Sources include each other from the project root ("core/dataset.hpp"); users write
# <sextant/api/skycube.hpp> and the umbrellas <sextant/skycube.hpp> (include/sextant/). The build
# tree serves both without a copy: the generated folder holds sextant/<folder> links to each
# library folder (links per folder, not one to the root: a build folder inside the checkout would
# make a link loop) and a link sextant/core/config.hpp to the generated configuration. Installed,
# headers sit under include/sextant/ and only include/ is on the path: the install rewrites their
# internal includes to "sextant/..." (SextantInstallHeaders.cmake), so no top-level "core/" or
# "api/" name reaches a consumer's include path.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(SextantPublicHeaders)  # SEXTANT_HEADER_FOLDERS

# Creates the links; call once the configuration header exists.
function(sextant_make_header_links)
  set(_tree ${SEXTANT_GENERATED_DIR}/tree/sextant)
  file(MAKE_DIRECTORY ${_tree} ${SEXTANT_GENERATED_DIR}/include/sextant/core)
  foreach(_folder IN LISTS SEXTANT_HEADER_FOLDERS)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${_folder} ${_tree}/${_folder} SYMBOLIC RESULT _result)
    if(_result)
      message(FATAL_ERROR "cannot link ${_tree}/${_folder} to ${PROJECT_SOURCE_DIR}/${_folder}: ${_result}")
    endif()
  endforeach()
  # A link, not a copy: one file, so #pragma once sees one header under both names.
  file(CREATE_LINK ${SEXTANT_GENERATED_DIR}/core/config.hpp ${SEXTANT_GENERATED_DIR}/include/sextant/core/config.hpp
       SYMBOLIC RESULT _result)
  if(_result)
    message(FATAL_ERROR "cannot link the generated core/config.hpp: ${_result}")
  endif()
endfunction()

# The build-tree include directories of a Sextant library target. Installed, every target has
# only <includedir> (install(TARGETS ... INCLUDES DESTINATION) in SextantInstall.cmake).
function(sextant_target_includes target)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>              # "core/dataset.hpp"
    $<BUILD_INTERFACE:${SEXTANT_GENERATED_DIR}>           # "core/config.hpp"
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>      # <sextant/skycube.hpp>
    $<BUILD_INTERFACE:${SEXTANT_GENERATED_DIR}/include>   # <sextant/core/config.hpp>
    $<BUILD_INTERFACE:${SEXTANT_GENERATED_DIR}/tree>)     # <sextant/core/dataset.hpp>
endfunction()
