# Finds hwloc through pkg-config where it exists and through plain header/library search
# otherwise (the GPU machines have no pkg-config file for some). Defines the imported target
# SextantDeps::hwloc. Used by the build and by the installed SextantConfig.cmake alike. PAPI is
# not here: it is loaded at run time (scheduler/papi_library.hpp), never linked.
include_guard(GLOBAL)

function(_sextant_find_dep name header library pc_module)
  set(_target SextantDeps::${name})
  if(TARGET ${_target})
    return()
  endif()
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(_sextant_pc_${name} QUIET ${pc_module})
  endif()
  find_path(SEXTANT_${name}_INCLUDE_DIR ${header} HINTS ${_sextant_pc_${name}_INCLUDE_DIRS})
  find_library(SEXTANT_${name}_LIBRARY ${library} HINTS ${_sextant_pc_${name}_LIBRARY_DIRS})
  if(SEXTANT_${name}_INCLUDE_DIR AND SEXTANT_${name}_LIBRARY)
    add_library(${_target} UNKNOWN IMPORTED GLOBAL)
    set_target_properties(${_target} PROPERTIES
      IMPORTED_LOCATION "${SEXTANT_${name}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${SEXTANT_${name}_INCLUDE_DIR}")
  endif()
endfunction()

_sextant_find_dep(hwloc hwloc.h hwloc hwloc)
