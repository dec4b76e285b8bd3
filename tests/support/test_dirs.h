#pragma once
// Helpers shared by the tests: a fresh scratch folder per test, and the paths of fixtures.

#include <filesystem>
#include <string>

namespace hnclip::test {

// A new empty folder under the system temp dir, unique to the running test; removed by the
// destructor unless HNCLIP_KEEP_TEST_DIRS is set (to inspect what a failing test left).
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Runs a shell command, returns its exit status; stdout and stderr captured into the strings.
int run_command(const std::string& command, std::string* out, std::string* err);

std::string read_text_file(const std::filesystem::path& p);
void write_text_file(const std::filesystem::path& p, const std::string& text);

}  // namespace hnclip::test
