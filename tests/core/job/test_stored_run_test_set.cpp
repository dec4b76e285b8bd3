// stored_run_test_set: a run's test set with what its stored data summary knows, here how many of
// the test split's images are training images (counted when the run was created).

#include "job/stored_run_test_set.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "data/benchmark_summary.h"

namespace hnclip {
namespace {

TrainConfig manifest_config() {
  TrainConfig c;
  c.benchmark = "manifest";
  c.benchmark_root = "/data/m.jsonl";
  return c;
}

nlohmann::json summary_with_test_images(int64_t images) {
  return {{"benchmark", "manifest"},
          {"root", "/data"},
          {"splits", {{"train", {{"images", 500}}}, {"test", {{"images", images}}}}}};
}

TEST(StoredRunTestSet, TestImagesThatAreTrainingImagesAreSaidAndSetApart) {
  const TrainConfig c = manifest_config();
  nlohmann::json summary = summary_with_test_images(162);
  set_shared_image_count(summary, "test", "train", 20);
  const RunTestSet marked = stored_run_test_set(c, summary.dump());
  EXPECT_EQ(marked.label, "manifest /data/m.jsonl / test (20 of 162 images trained on)");
  EXPECT_EQ(marked.split, "test");
  // Not ranked against a run whose test split is held out, nor one with another count.
  const RunTestSet held_out = stored_run_test_set(c, summary_with_test_images(162).dump());
  EXPECT_EQ(held_out.label, "manifest /data/m.jsonl / test");
  EXPECT_EQ(held_out.key, run_test_set(c).key);
  EXPECT_NE(marked.key, held_out.key);
  set_shared_image_count(summary, "test", "train", 21);
  EXPECT_NE(stored_run_test_set(c, summary.dump()).key, marked.key);
}

TEST(StoredRunTestSet, OtherSplitsCountsAndUnreadableSummariesAddNothing) {
  const TrainConfig c = manifest_config();
  const std::string plain = run_test_set(c).label;
  nlohmann::json summary = summary_with_test_images(162);
  // A validation split's images shared with training or test are not the test set's.
  set_shared_image_count(summary, "val", "train", 4);
  set_shared_image_count(summary, "val", "test", 4);
  // A count of 0 is not stored at all.
  set_shared_image_count(summary, "test", "train", 0);
  EXPECT_FALSE(summary["shared_images"].contains("test")) << summary.dump();
  EXPECT_EQ(stored_run_test_set(c, summary.dump()).label, plain);
  // Runs recorded before the count was kept, an empty or broken summary.
  EXPECT_EQ(stored_run_test_set(c, "{}").label, plain);
  EXPECT_EQ(stored_run_test_set(c, "").label, plain);
  EXPECT_EQ(stored_run_test_set(c, "{\"shared_images\": {\"test\": {\"train\": \"20\"}}}").label,
            plain);
  // Without the split's size the count still stands.
  EXPECT_EQ(stored_run_test_set(c, "{\"shared_images\": {\"test\": {\"train\": 3}}}").label,
            plain + " (3 images trained on)");
}

TEST(StoredRunTestSet, ARecordIsReadThroughItsConfigAndSummary) {
  TrainConfig c = manifest_config();
  nlohmann::json summary = summary_with_test_images(10);
  set_shared_image_count(summary, "test", "train", 2);
  RunRecord run;
  run.config_json = nlohmann::json(c).dump();
  run.data_summary_json = summary.dump();
  EXPECT_EQ(stored_run_test_set(run).label,
            "manifest /data/m.jsonl / test (2 of 10 images trained on)");
  // Tested on the training split: said once, as before.
  c.train_split = "test";
  run.config_json = nlohmann::json(c).dump();
  EXPECT_EQ(stored_run_test_set(run).label,
            "manifest /data/m.jsonl / test (also its training split)");
  run.config_json = "{not json";
  EXPECT_FALSE(stored_run_test_set(run).readable);
}

}  // namespace
}  // namespace hnclip
