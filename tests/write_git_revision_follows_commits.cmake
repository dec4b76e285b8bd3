# core/write_git_revision.cmake on a scratch repository (ctest: git_revision_follows_commits):
# the revision written is HEAD's after each commit, "-dirty" with a tracked file changed and not
# with an untracked one, "unknown" outside a checkout, and an unchanged revision leaves the file
# untouched (so a build after no commit recompiles nothing). Usage:
#   cmake -DSCRIPT=<write_git_revision.cmake> -DWORK=<scratch folder> -P <this file>
if(NOT SCRIPT OR NOT WORK)
  message(FATAL_ERROR "pass -DSCRIPT=<write_git_revision.cmake> -DWORK=<scratch folder>")
endif()
find_program(GIT git REQUIRED)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/repo ${WORK}/not-a-checkout)
set(_out ${WORK}/git_revision.cpp)

function(run_git)
  execute_process(COMMAND ${GIT} -c user.name=t -c user.email=t@t ${ARGN}
                  WORKING_DIRECTORY ${WORK}/repo RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
  if(_rc)
    message(FATAL_ERROR "git ${ARGN}: ${_err}")
  endif()
endfunction()

# Runs the script on `source`; sets `revision` in the caller to the string the file defines.
function(written_revision source)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${source} -DOUTPUT=${_out} -P ${SCRIPT}
                  RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(_rc)
    message(FATAL_ERROR "write_git_revision failed: ${_err}")
  endif()
  file(READ ${_out} _text)
  if(NOT _text MATCHES "return \"([^\"]*)\";")
    message(FATAL_ERROR "no revision in ${_out}:\n${_text}")
  endif()
  set(revision ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

function(expect_revision source expected what)
  written_revision(${source})
  if(NOT revision STREQUAL expected)
    message(FATAL_ERROR "${what}: wrote '${revision}', expected '${expected}'")
  endif()
  message(STATUS "${what}: ${revision}")
endfunction()

function(head_of_repo)
  execute_process(COMMAND ${GIT} rev-parse --short HEAD WORKING_DIRECTORY ${WORK}/repo
                  OUTPUT_VARIABLE _head OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(head ${_head} PARENT_SCOPE)
endfunction()

run_git(init -q)
file(WRITE ${WORK}/repo/a.txt "one\n")
run_git(add a.txt)
run_git(commit -q -m one)
head_of_repo()
set(_first ${head})
expect_revision(${WORK}/repo ${_first} "first commit")

# Unchanged: the file is not written again (its old time stays).
execute_process(COMMAND touch -d "2001-02-03 04:05:06" ${_out})
written_revision(${WORK}/repo)
file(TIMESTAMP ${_out} _stamp "%Y")
if(NOT _stamp STREQUAL "2001")
  message(FATAL_ERROR "the file was written again for an unchanged revision (${_stamp})")
endif()

# A commit after it: the next run writes the new revision (the configure-time revision did not).
file(WRITE ${WORK}/repo/a.txt "two\n")
run_git(commit -q -am two)
head_of_repo()
if(head STREQUAL _first)
  message(FATAL_ERROR "the second commit has the first one's revision")
endif()
expect_revision(${WORK}/repo ${head} "second commit")

file(WRITE ${WORK}/repo/untracked.txt "not the build's\n")
expect_revision(${WORK}/repo ${head} "an untracked file")
file(WRITE ${WORK}/repo/a.txt "three, not committed\n")
expect_revision(${WORK}/repo ${head}-dirty "a tracked file changed")

# Outside a checkout, and in a folder inside another checkout (the scratch folder sits in the
# build folder, itself often inside this project's checkout; and see the repository below).
expect_revision(${WORK}/not-a-checkout unknown "not a checkout")
file(MAKE_DIRECTORY ${WORK}/repo/unpacked-source)
expect_revision(${WORK}/repo/unpacked-source unknown "a source folder inside another repository")
