# Writes the source revision a build is made from into a C++ file (core/job/git_revision.h),
# run by the hnclip_git_revision target at every build, not once at configure time: a run
# records the revision that trained it, and `git pull && cmake --build` must not keep recording
# the one the build folder was configured at. Usage:
#   cmake -DSOURCE_DIR=<checkout> -DOUTPUT=<file.cpp> -P write_git_revision.cmake
# The revision is `git rev-parse --short HEAD`, with "-dirty" when a tracked file differs from
# it (untracked files are not the build's); "unknown" outside a git checkout. The file is
# rewritten only when its text changes, so an unchanged revision recompiles nothing.
if(NOT SOURCE_DIR OR NOT OUTPUT)
  message(FATAL_ERROR "write_git_revision: pass -DSOURCE_DIR=<checkout> -DOUTPUT=<file.cpp>")
endif()
set(_rev "unknown")
find_program(_git git)
if(_git)
  # Only a checkout of this source itself: a source tree unpacked inside another repository
  # (a home folder kept in git) is not that repository's revision.
  execute_process(COMMAND ${_git} rev-parse --show-toplevel WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE _top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${_git} rev-parse --short HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE _head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE _head_failed)
  file(REAL_PATH "${SOURCE_DIR}" _source)
  if(_top)
    file(REAL_PATH "${_top}" _top)
  endif()
  if(NOT _head_failed AND _head AND _top STREQUAL _source)
    set(_rev ${_head})
    execute_process(COMMAND ${_git} status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${SOURCE_DIR}
                    OUTPUT_VARIABLE _changed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_changed)
      string(APPEND _rev "-dirty")
    endif()
  endif()
endif()
set(_text "// Written by core/write_git_revision.cmake at build time; do not edit.\n#include \"job/git_revision.h\"\n\nconst char* hnclip::git_revision() { return \"${_rev}\"; }\n")
set(_old "")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} _old)
endif()
if(NOT _old STREQUAL _text)
  file(WRITE ${OUTPUT} "${_text}")
endif()
