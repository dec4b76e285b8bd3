# Included by the top-level CMakeLists.txt when HNCLIP_BUILD_FUZZ is ON, before core/: every
# target of this build folder is compiled with libFuzzer's coverage hooks and ASan + UBSan, so
# coverage (and sanitizer checks) reach the core libraries the fuzz targets link, not only the
# targets' own few lines. Only the fuzz executables link libFuzzer's main (tests/fuzz/CMakeLists.txt);
# use a build folder of its own (tests/fuzz/run.sh uses build/fuzz).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR
    "HNCLIP_BUILD_FUZZ needs clang (libFuzzer ships with it), but CMAKE_CXX_COMPILER is "
    "${CMAKE_CXX_COMPILER} (${CMAKE_CXX_COMPILER_ID}). Configure a fresh build folder with "
    "-DCMAKE_CXX_COMPILER=clang++ (Debian: apt-get install clang libclang-rt-14-dev), or run "
    "tests/fuzz/run.sh, which does.")
endif()
if(HNCLIP_BUILD_GUI OR HNCLIP_BUILD_TESTS)
  message(FATAL_ERROR
    "HNCLIP_BUILD_FUZZ instruments every target of the build folder: configure it with "
    "-DHNCLIP_BUILD_GUI=OFF -DHNCLIP_BUILD_TESTS=OFF (tests/fuzz/run.sh does)")
endif()
# -fno-sanitize-recover: a UBSan report aborts, so libFuzzer keeps the input as a crash instead of
# printing a line and going on.
set(HNCLIP_FUZZ_SANITIZERS address,undefined)
add_compile_options(-fsanitize=fuzzer-no-link,${HNCLIP_FUZZ_SANITIZERS} -fno-sanitize-recover=all
                    -fno-omit-frame-pointer)
# The other programs of the tree (hnclip) still link: they need the sanitizer runtimes.
add_link_options(-fsanitize=${HNCLIP_FUZZ_SANITIZERS})
