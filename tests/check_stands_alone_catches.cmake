# The stands-alone check must fail on a tree whose test reads a file beside the project
# (ctest: repository_stands_alone_catches_an_outside_read). The tree is written here, in the build
# folder, so the repository itself holds no such read. Usage:
#   cmake -DWORK=<scratch folder> -DCHECK=<check_stands_alone.cmake> -P check_stands_alone_catches.cmake
set(_sibling "sha")
string(APPEND _sibling "red")
file(REMOVE_RECURSE ${WORK})
file(WRITE ${WORK}/tests/reads_outside.cpp
     "#include <fstream>\nstd::ifstream vocab(\"../${_sibling}/data/bpe_simple_vocab_16e6.txt.gz\");\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK} -P ${CHECK}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(_rc EQUAL 0 OR NOT _err MATCHES "tests/reads_outside.cpp:2:")
  message(FATAL_ERROR "check_stands_alone passed a tree that reads outside it:\n${_out}${_err}")
endif()
message(STATUS "check_stands_alone refused the outside read, as it must")
