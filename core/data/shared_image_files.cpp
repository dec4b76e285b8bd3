#include "data/shared_image_files.h"

#include <filesystem>
#include <unordered_set>

#include "data/split_data.h"

namespace hnclip {

namespace {
std::string canonical_file(const std::string& path) {
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}
}  // namespace

std::vector<std::string> image_files(const std::vector<Sample>& samples) {
  std::vector<std::string> files;
  files.reserve(samples.size());
  for (const auto& s : samples) files.push_back(s.image);
  return files;
}

std::vector<std::string> image_files(const SplitData& data) {
  std::vector<std::string> files;
  files.reserve(static_cast<size_t>(data.num_images()));
  for (int64_t i = 0; i < data.num_images(); ++i) files.push_back(data.sample(i).image);
  return files;
}

std::vector<std::string> shared_image_files(const std::vector<std::string>& split_images,
                                            const std::vector<std::string>& other_images) {
  std::unordered_set<std::string> other;
  other.reserve(other_images.size());
  for (const auto& p : other_images) other.insert(canonical_file(p));
  std::vector<std::string> shared;
  std::unordered_set<std::string> seen;
  for (const auto& p : split_images) {
    const auto c = canonical_file(p);
    if (other.count(c) && seen.insert(c).second) shared.push_back(p);
  }
  return shared;
}

}  // namespace hnclip
