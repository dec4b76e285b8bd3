#pragma once
// The built-in `small` benchmark as a manifest a test can rewrite (tests/e2e): `hnclip benchmark`
// generates it into `cache_dir`, and its samples but the pretraining split's are written as JSON
// Lines beside its images, so a run on the manifest trains on the same 512 / 142 images as the
// built-in benchmark and the file can be written again with other captions or fewer images.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hnclip::test {

struct GeneratedManifest {
  std::filesystem::path file;
  std::vector<nlohmann::json> samples;  // as first written, in order

  // Writes `lines` (one JSON object each) over the file.
  void write(const std::vector<nlohmann::json>& lines) const;
};

// GoogleTest failures (and an empty `file`) when the benchmark cannot be generated.
GeneratedManifest generated_small_manifest(const std::filesystem::path& cache_dir,
                                           const std::string& name = "data.jsonl");

}  // namespace hnclip::test
