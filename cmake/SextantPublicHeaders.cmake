# The public headers: the umbrellas (include/sextant/*.hpp) and every header they include,
# transitively; nothing else is installed. Computed from the sources each time it is asked for
# (at install time, by the package test), so no list can go stale. Includes are read as text, so a
# header named under an #if is public too and the set is the same with CUDA or without.
# Usable from a project and in script mode (cmake -P).
include_guard(GLOBAL)
cmake_policy(VERSION 3.25...4.2)  # also when run from cmake_install.cmake, which sets none

# The folders that hold library headers; sources include them from the project root.
set(SEXTANT_HEADER_FOLDERS core datagen templates cpu gpu scheduler api apps testing)

# Where an included name lives, as the build finds it: "sextant/x.hpp" in include/ (the
# umbrellas), "sextant/<folder>/..." or "<folder>/..." in the project root or the generated folder.
# Sets <out_name> to the installed name ("sextant/core/dataset.hpp") and <out_path> to the file, or
# both empty when it does not exist.
function(_sextant_locate_header name source_dir generated_dir out_name out_path)
  set(_rest "${name}")
  if(name MATCHES "^sextant/(.*)$")
    set(_rest "${CMAKE_MATCH_1}")
    if(EXISTS "${source_dir}/include/${name}" AND NOT IS_DIRECTORY "${source_dir}/include/${name}")
      set(${out_name} "${name}" PARENT_SCOPE)
      set(${out_path} "${source_dir}/include/${name}" PARENT_SCOPE)
      return()
    endif()
  endif()
  foreach(_dir "${source_dir}" "${generated_dir}")
    if(EXISTS "${_dir}/${_rest}" AND NOT IS_DIRECTORY "${_dir}/${_rest}")
      set(${out_name} "sextant/${_rest}" PARENT_SCOPE)
      set(${out_path} "${_dir}/${_rest}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out_name} "" PARENT_SCOPE)
  set(${out_path} "" PARENT_SCOPE)
endfunction()

# sextant_public_headers(<out> <source_dir> <generated_dir>): <out> is a sorted list of
# "<installed name>|<file>" entries, e.g. "sextant/core/config.hpp|<build>/generated/core/config.hpp".
# Fails naming the header and the includer when a quoted include does not exist.
function(sextant_public_headers out source_dir generated_dir)
  file(GLOB _umbrellas RELATIVE "${source_dir}/include" "${source_dir}/include/sextant/*.hpp")
  if(NOT _umbrellas)
    message(FATAL_ERROR "no umbrella headers in ${source_dir}/include/sextant")
  endif()
  set(_queue ${_umbrellas})
  set(_seen)
  set(_result)
  while(_queue)
    list(POP_FRONT _queue _name)
    _sextant_locate_header("${_name}" "${source_dir}" "${generated_dir}" _installed _path)
    if(NOT _path)
      message(FATAL_ERROR "public header ${_name} not found (included by ${_from_${_name}})")
    endif()
    if(_installed IN_LIST _seen)
      continue()
    endif()
    list(APPEND _seen "${_installed}")
    list(APPEND _result "${_installed}|${_path}")
    file(STRINGS "${_path}" _lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    foreach(_line IN LISTS _lines)
      # Quoted includes are the project's; of the angle ones only <sextant/...> is. (Two ifs: a
      # failed MATCHES clears CMAKE_MATCH_1 and `if(a OR b)` evaluates both.)
      set(_included "")
      if(_line MATCHES "include[ \t]*\"([^\"]+)\"")
        set(_included "${CMAKE_MATCH_1}")
      elseif(_line MATCHES "include[ \t]*<(sextant/[^>]+)>")
        set(_included "${CMAKE_MATCH_1}")
      endif()
      if(_included)
        if(NOT DEFINED _from_${_included})
          set(_from_${_included} "${_installed}")
        endif()
        list(APPEND _queue "${_included}")
      endif()
    endforeach()
  endwhile()
  list(SORT _result)
  set(${out} ${_result} PARENT_SCOPE)
endfunction()

# The text of a header as installed: "<folder>/..." includes become "sextant/<folder>/...", so the
# installed headers need only include/ on the path.
function(sextant_installed_header_text path out)
  file(READ "${path}" _text)
  list(JOIN SEXTANT_HEADER_FOLDERS "|" _folders)
  string(REGEX REPLACE "(#[ \t]*include[ \t]*\")(${_folders})/" "\\1sextant/\\2/" _text "${_text}")
  set(${out} "${_text}" PARENT_SCOPE)
endfunction()
