# Install-time step (SextantInstall.cmake runs it): installs the public headers under
# <includedir>/sextant/ with their internal includes rewritten to "sextant/..." (staged in the
# build folder first, so file(INSTALL) records them in the install manifest and honours DESTDIR).
# Expects SEXTANT_SOURCE_DIR, SEXTANT_GENERATED_DIR, SEXTANT_STAGING_DIR, SEXTANT_INCLUDE_DIR.
include("${CMAKE_CURRENT_LIST_DIR}/SextantPublicHeaders.cmake")

sextant_public_headers(_sextant_headers "${SEXTANT_SOURCE_DIR}" "${SEXTANT_GENERATED_DIR}")
set(_sextant_destination "${SEXTANT_INCLUDE_DIR}")
if(NOT IS_ABSOLUTE "${_sextant_destination}")
  set(_sextant_destination "${CMAKE_INSTALL_PREFIX}/${_sextant_destination}")
endif()
foreach(_sextant_entry IN LISTS _sextant_headers)
  string(REPLACE "|" ";" _sextant_pair "${_sextant_entry}")
  list(GET _sextant_pair 0 _sextant_name)
  list(GET _sextant_pair 1 _sextant_path)
  sextant_installed_header_text("${_sextant_path}" _sextant_text)
  set(_sextant_staged "${SEXTANT_STAGING_DIR}/${_sextant_name}")
  set(_sextant_old "")
  if(EXISTS "${_sextant_staged}")
    file(READ "${_sextant_staged}" _sextant_old)
  endif()
  if(NOT _sextant_old STREQUAL _sextant_text)  # unchanged files keep their time stamps
    file(WRITE "${_sextant_staged}" "${_sextant_text}")
  endif()
  get_filename_component(_sextant_subdir "${_sextant_name}" DIRECTORY)
  file(INSTALL DESTINATION "${_sextant_destination}/${_sextant_subdir}" TYPE FILE FILES "${_sextant_staged}")
endforeach()
