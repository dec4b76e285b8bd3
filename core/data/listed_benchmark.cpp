#include "data/listed_benchmark.h"

#include <utility>

namespace hnclip {

ListedBenchmark::ListedBenchmark(std::string name, std::string root,
                                 std::vector<std::string> split_names,
                                 std::map<std::string, std::vector<Sample>> samples,
                                 std::string missing_split_hint)
    : name_(std::move(name)),
      root_(std::move(root)),
      split_names_(std::move(split_names)),
      samples_(std::move(samples)),
      missing_split_hint_(std::move(missing_split_hint)) {}

std::vector<Sample> ListedBenchmark::split(const std::string& name) const {
  auto it = samples_.find(name);
  if (it == samples_.end()) {
    std::string known;
    for (const auto& s : split_names_) known += (known.empty() ? "" : ", ") + s;
    std::string message = "benchmark '" + name_ + "': unknown split '" + name + "' (it has: " + known + ")";
    if (!missing_split_hint_.empty()) message += "; " + missing_split_hint_;
    throw DataError(message);
  }
  return it->second;
}

}  // namespace hnclip
