#pragma once
// Runs a python3-torch reference script of tests/core/reference on a JSON input and returns its
// JSON output: the script is called as `SCRIPT IN.json OUT.json` with Debian's python3 (the
// test-time reference interpreter), in a scratch folder of the caller's.

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_dirs.h"

namespace hnclip::test {

// `script`: a file name under tests/core/reference. Throws std::runtime_error with the script's
// stderr when it fails.
inline nlohmann::json run_reference_script(const std::string& script, const nlohmann::json& input,
                                           const ScratchDir& dir) {
  write_text_file(dir / "in.json", input.dump());
  std::string out, err;
  const std::string cmd = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                          "/core/reference/" + script + " " + (dir / "in.json").string() + " " +
                          (dir / "out.json").string();
  if (run_command(cmd, &out, &err) != 0) {
    throw std::runtime_error("reference script " + script + " failed: " + err);
  }
  return nlohmann::json::parse(read_text_file(dir / "out.json"));
}

}  // namespace hnclip::test
