#pragma once
// Runs the `hnclip` program as a user would (tests/e2e), and checks how it reports an error.

#include <string>

namespace hnclip::test {

struct CliResult {
  int code = 0;
  std::string out, err;
};

// `hnclip <args>`: exit code, stdout and stderr.
CliResult run_hnclip(const std::string& args);

// GoogleTest checks: the exit code, and exactly one error line on stderr — the last one,
// "hnclip: ..." naming `needle` — and nothing on stdout. (Progress lines, e.g. generating the
// benchmark before its size can be checked, may come before it.)
void expect_one_line_error(const CliResult& r, int code, const std::string& needle);

}  // namespace hnclip::test
