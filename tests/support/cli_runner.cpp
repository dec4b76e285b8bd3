#include "support/cli_runner.h"

#include <gtest/gtest.h>

#include "support/test_dirs.h"

namespace hnclip::test {

CliResult run_hnclip(const std::string& args) {
  CliResult r;
  r.code = run_command(std::string(HNCLIP_CLI_PATH) + " " + args, &r.out, &r.err);
  return r;
}

void expect_one_line_error(const CliResult& r, int code, const std::string& needle) {
  EXPECT_EQ(r.code, code) << r.err;
  ASSERT_FALSE(r.err.empty());
  ASSERT_EQ(r.err.back(), '\n');
  const auto start = r.err.rfind('\n', r.err.size() - 2);
  const std::string last = r.err.substr(start == std::string::npos ? 0 : start + 1);
  EXPECT_EQ(last.rfind("hnclip: ", 0), 0u) << "last line is not the error: " << r.err;
  EXPECT_NE(last.find(needle), std::string::npos) << "stderr: " << r.err;
  size_t error_lines = 0;
  for (size_t p = 0; (p = r.err.find("hnclip: ", p)) != std::string::npos; ++p) {
    if (p == 0 || r.err[p - 1] == '\n') ++error_lines;
  }
  EXPECT_EQ(error_lines, 1u) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace hnclip::test
