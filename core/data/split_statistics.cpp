#include "data/split_statistics.h"

#include <vector>

namespace hnclip {

SplitStatistics split_statistics(const Benchmark& benchmark, const std::string& split) {
  const auto samples = benchmark.split(split);
  std::vector<std::string> captions;
  for (const auto& s : samples) captions.insert(captions.end(), s.captions.begin(), s.captions.end());
  SplitStatistics out;
  out.split = split;
  out.images = static_cast<int64_t>(samples.size());
  out.captions = static_cast<int64_t>(captions.size());
  out.similarity = bag_of_words_stats(captions);
  return out;
}

}  // namespace hnclip
