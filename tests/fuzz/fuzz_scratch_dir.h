#pragma once
// FuzzScratchDir: a private temporary folder for the fuzz targets whose parser reads a path, not
// bytes (the manifest and DCI readers resolve image files beside the manifest; the state-dict and
// safetensors readers check the file's size and magic, mmap it or hand the path to LibTorch's zip
// reader). Writing each input to a file there exercises exactly the code a user's file meets,
// where an in-memory seam would fuzz a second entry point instead. One per process (libFuzzer
// -jobs run separate processes), removed at exit. Not thread-safe; libFuzzer calls targets from
// one thread.

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace hnclip::fuzz {

class FuzzScratchDir {
 public:
  FuzzScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/hnclip-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("hnclip fuzz: mkdtemp");
      std::abort();
    }
    root_ = pattern;
  }
  ~FuzzScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  FuzzScratchDir(const FuzzScratchDir&) = delete;
  FuzzScratchDir& operator=(const FuzzScratchDir&) = delete;

  const std::filesystem::path& root() const { return root_; }

  // Writes `size` bytes to root()/relative (folders created), replacing what was there.
  std::string write(const std::string& relative, const uint8_t* data, size_t size) const {
    const auto path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
      std::fprintf(stderr, "hnclip fuzz: cannot write %s\n", path.c_str());
      std::abort();
    }
    return path.string();
  }
  std::string write(const std::string& relative, const std::string& text) const {
    return write(relative, reinterpret_cast<const uint8_t*>(text.data()), text.size());
  }

 private:
  std::filesystem::path root_;
};

}  // namespace hnclip::fuzz
