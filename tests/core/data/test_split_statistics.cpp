// split_statistics (core/data/split_statistics.h): a split's Table A1 row. A split of one caption
// has no pairs: its similarities are absent (NaN), not an exception that stopped `hnclip
// benchmark` after the first row and left the Train tab's summary an error.
#include <gtest/gtest.h>

#include <cmath>

#include "data/listed_benchmark.h"
#include "data/split_statistics.h"

namespace {

using hnclip::Sample;

hnclip::ListedBenchmark benchmark() {
  return hnclip::ListedBenchmark(
      "manifest", "/data", {"train", "test"},
      {{"train", {Sample{"/data/a.png", {"a red square"}, "train", ""}}},
       {"test",
        {Sample{"/data/b.png", {"a red square", "one blue circle here"}, "test", ""},
         Sample{"/data/c.png", {"a red circle"}, "test", ""}}}});
}

}  // namespace

TEST(SplitStatistics, ASplitOfOneCaptionHasNoSimilaritiesButItsCounts) {
  const auto b = benchmark();
  const auto one = hnclip::split_statistics(b, "train");
  EXPECT_EQ(one.images, 1);
  EXPECT_EQ(one.captions, 1);
  EXPECT_EQ(one.similarity.count, 1);
  EXPECT_DOUBLE_EQ(one.similarity.mean_words, 3.0);
  EXPECT_TRUE(std::isnan(one.similarity.mean_pairwise));
  EXPECT_TRUE(std::isnan(one.similarity.mean_hardest));
  EXPECT_TRUE(std::isnan(one.similarity.median_hardest));

  const auto three = hnclip::split_statistics(b, "test");
  EXPECT_EQ(three.images, 2);
  EXPECT_EQ(three.captions, 3);
  EXPECT_NEAR(three.similarity.mean_words, 10.0 / 3.0, 1e-12);
  EXPECT_FALSE(std::isnan(three.similarity.mean_pairwise));
  // "a red square" and "a red circle" share 2 of 3 words: cosine 2/3, each one's hardest.
  EXPECT_NEAR(three.similarity.median_hardest, 2.0 / 3.0, 1e-6);
}
