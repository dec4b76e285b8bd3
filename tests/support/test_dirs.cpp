#include "support/test_dirs.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hnclip::test {

namespace fs = std::filesystem;

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  std::string name = "hnclip-test";
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    name += std::string("-") + info->test_suite_name() + "-" + info->name();
  }
  for (auto& c : name) {
    if (c == '/') c = '_';
  }
  path_ = fs::temp_directory_path() /
          (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  if (std::getenv("HNCLIP_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
}

int run_command(const std::string& command, std::string* out, std::string* err) {
  ScratchDir tmp;
  const auto out_path = tmp / "stdout";
  const auto err_path = tmp / "stderr";
  const std::string full = command + " >" + out_path.string() + " 2>" + err_path.string() + " </dev/null";
  const int status = std::system(full.c_str());
  if (out) *out = read_text_file(out_path);
  if (err) *err = read_text_file(err_path);
  if (status == -1) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + p.string());
  out << text;
}

}  // namespace hnclip::test
