#pragma once
// GoogleTest check for readers that report several problems in one exception: `fn` must throw
// `Error`, and its message must contain every one of `needles`. Header-only (a template), so the
// support library needs no core library.

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hnclip::test {

// The message, for further checks ("" after a failure).
template <typename Error, typename Fn>
std::string expect_error_containing(Fn fn, const std::vector<std::string>& needles) {
  try {
    fn();
    ADD_FAILURE() << "no exception thrown";
    return "";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
    return msg;
  }
}

}  // namespace hnclip::test
