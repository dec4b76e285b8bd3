// Tests core/job/stored_best_epoch on hand-made epoch_evals rows: a run whose fine-tuning loses
// accuracy keeps its start as "start" and its best fine-tuned epoch as best; other splits and k
// are ignored; last_epoch limits the choice (resume).

#include "job/stored_best_epoch.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hnclip {
namespace {

void add(std::vector<EpochEvalRow>& rows, int epoch, double t2i, double i2t,
         const std::string& split = "test") {
  rows.push_back({epoch, epoch * 10, split, "t2i", 1, t2i});
  rows.push_back({epoch, epoch * 10, split, "t2i", 5, 99.0});  // other k: never the score
  rows.push_back({epoch, epoch * 10, split, "i2t", 1, i2t});
}

TEST(StoredBestEpoch, StartIsReportedApartAndNeverBest) {
  std::vector<EpochEvalRow> rows;
  add(rows, 0, 87.32, 86.0);  // the pretrained start beats every fine-tuned epoch
  add(rows, 1, 80.0, 81.0);
  add(rows, 2, 82.0, 83.0);
  add(rows, 3, 81.0, 82.0);
  add(rows, 2, 99.0, 99.0, "train");  // another split: ignored
  const auto b = best_stored_epoch(rows);
  EXPECT_EQ(b.epoch, 2);
  EXPECT_DOUBLE_EQ(b.score, 82.5);
  EXPECT_DOUBLE_EQ(b.r1_t2i, 82.0);
  EXPECT_DOUBLE_EQ(b.r1_i2t, 83.0);
  EXPECT_DOUBLE_EQ(b.start_r1_t2i, 87.32);
  EXPECT_DOUBLE_EQ(b.start_r1_i2t, 86.0);
  EXPECT_EQ(best_stored_epoch(rows, 1).epoch, 1);  // resuming after epoch 1
}

TEST(StoredBestEpoch, OnlyTheStartEvaluatedMeansNoBest) {
  std::vector<EpochEvalRow> rows;
  add(rows, 0, 50.0, 40.0);
  const auto b = best_stored_epoch(rows);
  EXPECT_EQ(b.epoch, -1);
  EXPECT_TRUE(std::isnan(b.r1_t2i));
  EXPECT_DOUBLE_EQ(b.start_r1_t2i, 50.0);
  EXPECT_EQ(best_stored_epoch({}).epoch, -1);
  EXPECT_TRUE(std::isnan(best_stored_epoch({}).start_r1_i2t));
}

}  // namespace
}  // namespace hnclip
