#pragma once
// The images a run left out under --skip-bad-images: training pairs whose image failed to decode
// mid-run (a truncated JPEG that passed the header check, a file replaced while training) are
// dropped from their batch instead of failing the run, and every one is counted here so the run
// record says what was skipped — never a silent loss. Thread-safe: batch loader workers add.

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hnclip {

class BadImageLog {
 public:
  // Image `image` of the training split failed with `message` (a DataError naming the file).
  void add(int64_t image, const std::string& message);
  int64_t pairs_dropped() const;
  std::vector<int64_t> images() const;  // distinct, sorted
  // {"images": N, "pairs_dropped": M, "image_ids": [...], "examples": [first messages]}, merged
  // with `earlier` (what a resumed run's record already holds): an image is counted once however
  // often its pair was dropped.
  nlohmann::json summary(const nlohmann::json& earlier = nullptr) const;

 private:
  static constexpr size_t kExamples = 10;  // messages kept verbatim in the record
  mutable std::mutex mutex_;
  std::set<int64_t> images_;
  std::vector<std::string> examples_;
  int64_t pairs_dropped_ = 0;
};

}  // namespace hnclip
