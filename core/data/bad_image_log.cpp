#include "data/bad_image_log.h"

namespace hnclip {

void BadImageLog::add(int64_t image, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++pairs_dropped_;
  if (images_.insert(image).second && examples_.size() < kExamples) examples_.push_back(message);
}

int64_t BadImageLog::pairs_dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pairs_dropped_;
}

std::vector<int64_t> BadImageLog::images() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {images_.begin(), images_.end()};
}

nlohmann::json BadImageLog::summary(const nlohmann::json& earlier) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::set<int64_t> images = images_;
  std::vector<std::string> examples;
  int64_t dropped = pairs_dropped_;
  if (earlier.is_object()) {
    for (const auto& i : earlier.value("image_ids", nlohmann::json::array())) {
      if (i.is_number_integer()) images.insert(i.get<int64_t>());
    }
    for (const auto& e : earlier.value("examples", nlohmann::json::array())) {
      if (e.is_string() && examples.size() < kExamples) examples.push_back(e.get<std::string>());
    }
    dropped += earlier.value("pairs_dropped", int64_t{0});
  }
  for (const auto& e : examples_) {
    if (examples.size() < kExamples) examples.push_back(e);
  }
  return {{"images", images.size()},
          {"pairs_dropped", dropped},
          {"image_ids", std::vector<int64_t>(images.begin(), images.end())},
          {"examples", examples}};
}

}  // namespace hnclip
