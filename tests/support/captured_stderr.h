#pragma once
// What a piece of code writes to file descriptor 2 — where C libraries (libjpeg, libpng, libtiff)
// print when nobody gave them a handler — for tests that a message is attributed, not printed.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "support/test_dirs.h"

namespace hnclip::test {

// Runs `fn` with fd 2 sent to a temporary file and returns what was written; fd 2 is restored
// even when `fn` throws (the exception then propagates).
inline std::string stderr_of(const std::function<void()>& fn) {
  std::fflush(stderr);
  char name[] = "/tmp/hnclip-stderr-XXXXXX";
  const int capture = ::mkstemp(name);
  const int saved = ::dup(2);
  ::dup2(capture, 2);
  auto restore = [&] {
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    ::close(capture);
    const std::string text = read_text_file(name);
    ::unlink(name);
    return text;
  };
  try {
    fn();
  } catch (...) {
    restore();
    throw;
  }
  return restore();
}

}  // namespace hnclip::test
