#include "data/split_statistics.h"

#include <limits>
#include <vector>

#include "text/word_tokenizer.h"

namespace hnclip {

SplitStatistics split_statistics(const Benchmark& benchmark, const std::string& split) {
  const auto samples = benchmark.split(split);
  std::vector<std::string> captions;
  for (const auto& s : samples) captions.insert(captions.end(), s.captions.begin(), s.captions.end());
  SplitStatistics out;
  out.split = split;
  out.images = static_cast<int64_t>(samples.size());
  out.captions = static_cast<int64_t>(captions.size());
  if (captions.size() >= 2) {
    out.similarity = bag_of_words_stats(captions);
    return out;
  }
  // One caption (or none) has no other to be like: words counted, similarities absent, and the
  // other splits' rows still printed (a one-image split made `hnclip benchmark` fail after its
  // first row).
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  out.similarity.count = out.captions;
  int64_t words = 0;
  for (const auto& c : captions) words += static_cast<int64_t>(WordTokenizer::words(c).size());
  out.similarity.mean_words = captions.empty() ? kNaN : static_cast<double>(words);
  out.similarity.mean_pairwise = out.similarity.mean_hardest = out.similarity.median_hardest = kNaN;
  return out;
}

}  // namespace hnclip
