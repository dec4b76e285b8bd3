# The repository stands alone (ctest: repository_stands_alone): no source, test, script or build
# file names a path outside it — the engineers' notes folder beside the project above all, which
# a user's clone does not have. Usage:
#   cmake -DROOT=<repository root> -P check_stands_alone.cmake
# Fails listing every offending file:line. .ci/run also runs the suite in a clone with no sibling
# folders, so a read that slips past this check fails there.
if(NOT ROOT)
  message(FATAL_ERROR "check_stands_alone: pass -DROOT=<repository root>")
endif()
# The names are spelled in pieces, so this file does not name them itself: the notes folder
# beside the project, and the engineers' machine's workspace root.
set(_sibling "sha")
string(APPEND _sibling "red")
set(_workspace "wor")
string(APPEND _workspace "k")
set(_patterns "\\.\\./${_sibling}" "${_sibling}/(data|notes)/" "(^|[^a-z])/${_workspace}/")
# Recursion only inside these folders: GLOB_RECURSE with a top-level file name would search the
# whole tree for that name, build/ included (a Debian root from check-libtorch2.sh, with /proc
# mounted inside it, never ends).
file(GLOB_RECURSE _files
     ${ROOT}/core/* ${ROOT}/app/* ${ROOT}/widgets/* ${ROOT}/tests/* ${ROOT}/packaging/*
     ${ROOT}/resources/*.qrc ${ROOT}/.ci/*)
file(GLOB _top ${ROOT}/CMakeLists.txt ${ROOT}/CMakePresets.json)
list(APPEND _files ${_top})
set(_violations "")
set(_checked 0)
foreach(_file ${_files})
  file(RELATIVE_PATH _rel ${ROOT} ${_file})
  if(_rel MATCHES "\\.(png|gz|pt|bin|svg|ico)$")
    continue()
  endif()
  math(EXPR _checked "${_checked} + 1")
  file(STRINGS ${_file} _lines)
  set(_n 0)
  foreach(_line IN LISTS _lines)
    math(EXPR _n "${_n} + 1")
    foreach(_p ${_patterns})
      if(_line MATCHES "${_p}")
        string(APPEND _violations "\n  ${_rel}:${_n}: ${_line}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(_violations)
  message(FATAL_ERROR "paths outside the repository:${_violations}")
endif()
message(STATUS "check_stands_alone: ${_checked} files name nothing outside the repository")
