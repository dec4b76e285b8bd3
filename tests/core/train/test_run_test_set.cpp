// RunTestSet: which data a run's recall was measured on, as a key (equal exactly for comparable
// runs) and a label for people, from a TrainConfig or a stored config's JSON.

#include "train/run_test_set.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "train/train_config.h"

namespace hnclip {
namespace {

TEST(RunTestSet, BuiltInBenchmarkIsNamedBySizeSeedAndSplit) {
  TrainConfig c;
  c.benchmark_size = BenchmarkSize::kSmall;
  const RunTestSet s = run_test_set(c);
  EXPECT_EQ(s.label, "synthetic small (seed 1) / test");
  EXPECT_EQ(s.split, "test");
  EXPECT_TRUE(s.readable);
  TrainConfig other = c;
  other.data_seed = 2;
  EXPECT_NE(run_test_set(other).key, s.key);
  other = c;
  other.test_split = "val";
  EXPECT_NE(run_test_set(other).key, s.key);
  other = c;
  other.loss_gamma = 0.5;  // a training setting: the same test set
  EXPECT_EQ(run_test_set(other).key, s.key);
}

TEST(RunTestSet, DataOnDiskIsNamedByItsRoot) {
  TrainConfig c;
  c.benchmark = "docci";
  c.benchmark_root = "/data/docci";
  c.test_split = "qual_dev";
  EXPECT_EQ(run_test_set(c).label, "docci /data/docci / qual_dev");
  TrainConfig elsewhere = c;
  elsewhere.benchmark_root = "/data/docci-v2";
  EXPECT_NE(run_test_set(elsewhere).key, run_test_set(c).key);
}

// Tested on the split it trained on: said in the label, and a set of its own, so that such a run
// is never ranked "best" over runs tested on held-out images of the same split name.
TEST(RunTestSet, TestingOnTheTrainingSplitIsSaidAndSetApart) {
  TrainConfig held_out;
  held_out.benchmark = "manifest";
  held_out.benchmark_root = "/data/m";
  held_out.train_split = "train";
  held_out.test_split = "all";
  TrainConfig fitted = held_out;
  fitted.train_split = "all";
  EXPECT_EQ(run_test_set(fitted).label, "manifest /data/m / all (also its training split)");
  EXPECT_EQ(run_test_set(held_out).label, "manifest /data/m / all");
  EXPECT_NE(run_test_set(fitted).key, run_test_set(held_out).key);
  EXPECT_EQ(run_test_set(fitted).key, run_test_set(fitted).key);
  EXPECT_EQ(run_test_set(nlohmann::json(fitted).dump()).label, run_test_set(fitted).label);
}

TEST(RunTestSet, AnUnreadableConfigIsItsOwnSetOnTheDefaultSplit) {
  const RunTestSet s = run_test_set(std::string(R"({"epochs": "two"})"));
  EXPECT_FALSE(s.readable);
  EXPECT_EQ(s.split, TrainConfig{}.test_split);
  EXPECT_EQ(s.label.rfind("configuration cannot be read: ", 0), 0u) << s.label;
  EXPECT_NE(s.key, run_test_set(TrainConfig{}).key);
}

}  // namespace
}  // namespace hnclip
