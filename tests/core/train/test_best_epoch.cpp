// Tests core/train/best_epoch: the one best-epoch rule — epoch 0 (the start) never wins, ties keep
// the earlier epoch, NaN never wins, a resumed selector keeps its best, one missing direction
// falls back to the other.

#include "train/best_epoch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace hnclip {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(BestEpoch, StartNeverWinsEvenWhenEveryEpochIsWorse) {
  BestEpochSelector best;
  EXPECT_FALSE(best.offer(kStartEpoch, 87.32));
  EXPECT_EQ(best.epoch(), -1);
  EXPECT_TRUE(best.offer(1, 80.0));
  EXPECT_FALSE(best.offer(2, 79.0));
  EXPECT_EQ(best.epoch(), 1);
  EXPECT_DOUBLE_EQ(best.score(), 80.0);
}

TEST(BestEpoch, StrictlyBetterWinsTiesKeepTheEarlierEpoch) {
  BestEpochSelector best;
  EXPECT_TRUE(best.offer(1, 50.0));
  EXPECT_FALSE(best.offer(2, 50.0));
  EXPECT_TRUE(best.offer(3, 50.5));
  EXPECT_FALSE(best.offer(4, kNaN));
  EXPECT_EQ(best.epoch(), 3);
}

// 142 queries: 58 + 142 and 59 + 141 hits are the same mean R@1, though the second epoch's double
// is one unit in the last place higher. The earlier epoch keeps it; one query more still wins.
TEST(BestEpoch, ScoresThatDifferOnlyByRoundingAreTies) {
  const auto score = [](int t2i_hits, int i2t_hits) {
    return best_epoch_score(100.0 * t2i_hits / 142, 100.0 * i2t_hits / 142);
  };
  ASSERT_LT(score(58, 142), score(59, 141)) << "the two scores are meant to differ in the last bit";
  BestEpochSelector best;
  EXPECT_TRUE(best.offer(1, score(58, 142)));
  EXPECT_FALSE(best.offer(2, score(59, 141)));
  EXPECT_EQ(best.epoch(), 1);
  EXPECT_TRUE(best.offer(3, score(59, 142)));
  EXPECT_EQ(best.epoch(), 3);
}

TEST(BestEpoch, ResumedSelectorKeepsItsBest) {
  BestEpochSelector best(2, 60.0);
  EXPECT_FALSE(best.offer(3, 59.9));
  EXPECT_EQ(best.epoch(), 2);
  EXPECT_TRUE(best.offer(4, 61.0));
  EXPECT_EQ(best.epoch(), 4);
}

TEST(BestEpoch, ScoreIsTheMeanOfTheDirectionsOrTheOneThere) {
  EXPECT_DOUBLE_EQ(best_epoch_score(40.0, 60.0), 50.0);
  EXPECT_DOUBLE_EQ(best_epoch_score(kNaN, 60.0), 60.0);
  EXPECT_DOUBLE_EQ(best_epoch_score(40.0, kNaN), 40.0);
  EXPECT_TRUE(std::isnan(best_epoch_score(kNaN, kNaN)));
}

}  // namespace
}  // namespace hnclip
