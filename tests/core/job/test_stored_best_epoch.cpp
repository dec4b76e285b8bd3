// Tests core/job/stored_best_epoch on hand-made epoch_evals rows: a run whose fine-tuning loses
// accuracy keeps its start as "start" and its best fine-tuned epoch as best; other splits and k
// are ignored; last_epoch limits the choice (resume); a run trained with another test split
// chooses on that split, also when read from a store by its config.

#include "job/stored_best_epoch.h"

#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "support/test_dirs.h"
#include "train/train_config.h"

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
  const auto b = best_stored_epoch(rows, "test");
  EXPECT_EQ(b.epoch, 2);
  EXPECT_DOUBLE_EQ(b.score, 82.5);
  EXPECT_DOUBLE_EQ(b.r1_t2i, 82.0);
  EXPECT_DOUBLE_EQ(b.r1_i2t, 83.0);
  EXPECT_DOUBLE_EQ(b.start_r1_t2i, 87.32);
  EXPECT_DOUBLE_EQ(b.start_r1_i2t, 86.0);
  EXPECT_EQ(best_stored_epoch(rows, "test", 1).epoch, 1);  // resuming after epoch 1
}

TEST(StoredBestEpoch, OnlyTheStartEvaluatedMeansNoBest) {
  std::vector<EpochEvalRow> rows;
  add(rows, 0, 50.0, 40.0);
  const auto b = best_stored_epoch(rows, "test");
  EXPECT_EQ(b.epoch, -1);
  EXPECT_TRUE(std::isnan(b.r1_t2i));
  EXPECT_DOUBLE_EQ(b.start_r1_t2i, 50.0);
  EXPECT_EQ(best_stored_epoch({}, "test").epoch, -1);
  EXPECT_TRUE(std::isnan(best_stored_epoch({}, "test").start_r1_i2t));
}

TEST(StoredBestEpoch, ChoosesOnTheRunsOwnTestSplit) {
  std::vector<EpochEvalRow> rows;
  add(rows, 0, 50.0, 50.0, "val");
  add(rows, 1, 70.0, 70.0, "val");
  add(rows, 2, 60.0, 60.0, "val");
  EXPECT_EQ(best_stored_epoch(rows, "val").epoch, 1);
  EXPECT_DOUBLE_EQ(best_stored_epoch(rows, "val").start_r1_t2i, 50.0);
  EXPECT_EQ(best_stored_epoch(rows, "test").epoch, -1);  // no row of "test": no best

  // From a store: the split comes from each run's config (TrainConfig's default when unreadable).
  test::ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  auto run_with = [&](const std::string& config_json) {
    RunRecord r;
    r.config_json = config_json;
    const int64_t id = store.create_run(r);
    auto result = [](const char* direction, double r1) {
      RetrievalResult x;
      x.direction = direction;
      x.recall = {{1, r1}};
      return x;
    };
    // val: epoch 2 is best; test: epoch 1 is best.
    store.write_epoch_eval(id, 1, 10, "val", result("t2i", 10), result("i2t", 10));
    store.write_epoch_eval(id, 2, 20, "val", result("t2i", 90), result("i2t", 90));
    store.write_epoch_eval(id, 1, 10, "test", result("t2i", 80), result("i2t", 80));
    store.write_epoch_eval(id, 2, 20, "test", result("t2i", 20), result("i2t", 20));
    return *store.find_run(id);
  };
  TrainConfig on_val;
  on_val.test_split = "val";
  EXPECT_EQ(best_stored_epoch(store, run_with(nlohmann::json(on_val).dump())).epoch, 2);
  EXPECT_EQ(best_stored_epoch(store, run_with(nlohmann::json(TrainConfig{}).dump())).epoch, 1);
  EXPECT_EQ(best_stored_epoch(store, run_with("{not json")).epoch, 1);
}

}  // namespace
}  // namespace hnclip
