#include "support/generated_manifest.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/cli_runner.h"

namespace hnclip::test {

void GeneratedManifest::write(const std::vector<nlohmann::json>& lines) const {
  std::ofstream out(file, std::ios::trunc);
  for (const auto& j : lines) out << j.dump() << "\n";
}

GeneratedManifest generated_small_manifest(const std::filesystem::path& cache_dir,
                                           const std::string& name) {
  GeneratedManifest m;
  const auto r = run_hnclip("benchmark --benchmark-size small --cache-dir " + cache_dir.string());
  EXPECT_EQ(r.code, 0) << r.err;
  std::filesystem::path generated;
  if (std::filesystem::exists(cache_dir))
    for (const auto& e : std::filesystem::recursive_directory_iterator(cache_dir))
      if (e.path().filename() == "manifest.jsonl") generated = e.path();
  if (generated.empty()) {
    ADD_FAILURE() << "no generated manifest.jsonl under " << cache_dir;
    return m;
  }
  std::ifstream in(generated);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j["split"] != "pretrain") m.samples.push_back(std::move(j));
  }
  m.file = generated.parent_path() / name;
  m.write(m.samples);
  return m;
}

}  // namespace hnclip::test
