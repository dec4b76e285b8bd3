// caption_geometry_for as the workbench calls it off the GUI thread: progress is reported in
// order and reaches 1, a cancel flag set mid-way ends the call with CaptionGeometryCancelled and
// leaves nothing in the store, and the same request without cancel then stores its geometry.
// Built-in benchmark (size small) with the pretrained starting checkpoint.

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "job/caption_geometry_job.h"
#include "store/run_store.h"
#include "support/test_dirs.h"

namespace {

hnclip::CaptionGeometryRequest small_request(const hnclip::test::ScratchDir& dir) {
  hnclip::CaptionGeometryRequest r;
  r.benchmark.name = "synthetic";
  r.benchmark.size = "small";
  r.benchmark.cache_dir = (dir / "cache").string();
  r.split = "test";
  r.encoder = "init:pretrained";
  r.device = "cpu";
  r.threads = 1;
  return r;
}

TEST(CaptionGeometryJob, CancelMidwayStoresNothingAndARetryStores) {
  hnclip::test::ScratchDir dir;
  const hnclip::JobPaths paths{(dir / "runs.db").string(), (dir / "cache").string()};
  auto request = small_request(dir);
  std::atomic<bool> cancel{false};
  std::vector<double> seen;
  request.cancel = &cancel;
  // Cancel as soon as the encoder has reported work done: the next check must stop the call.
  request.progress = [&](double f) {
    seen.push_back(f);
    if (f > 0) cancel = true;
  };
  EXPECT_THROW(hnclip::caption_geometry_for(request, paths), hnclip::CaptionGeometryCancelled);
  ASSERT_GE(seen.size(), 2u);
  EXPECT_LT(seen.back(), 1.0) << "the cancel was noticed only at the end";

  const auto dataset = hnclip::caption_dataset_key(request.benchmark, request.split);
  const auto encoder = hnclip::resolve_caption_encoder(request.encoder, paths.database);
  {
    hnclip::RunStore store(paths.database);
    EXPECT_FALSE(store.caption_stats(dataset, encoder.key).has_value())
        << "a cancelled request stored stats";
    EXPECT_TRUE(store.caption_neighbors(dataset, encoder.key, -1).empty());
  }

  cancel = false;
  seen.clear();
  request.progress = [&](double f) { seen.push_back(f); };
  const auto outcome = hnclip::caption_geometry_for(request, paths);
  EXPECT_TRUE(outcome.computed);
  ASSERT_FALSE(seen.empty());
  for (size_t i = 1; i < seen.size(); ++i)
    EXPECT_GE(seen[i], seen[i - 1]) << "progress went backwards at " << i;
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  hnclip::RunStore store(paths.database);
  const auto stats = store.caption_stats(dataset, encoder.key);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->captions, outcome.record.stats.captions);
}

TEST(CaptionGeometryJob, CancelBeforeStartThrowsWithTheDatasetInTheMessage) {
  hnclip::test::ScratchDir dir;
  const hnclip::JobPaths paths{(dir / "runs.db").string(), (dir / "cache").string()};
  auto request = small_request(dir);
  std::atomic<bool> cancel{true};
  request.cancel = &cancel;
  try {
    hnclip::caption_geometry_for(request, paths);
    FAIL() << "no exception";
  } catch (const hnclip::CaptionGeometryCancelled& e) {
    // Named as a person names it, not by the store's key ("synthetic:size=small:seed=1#test").
    EXPECT_NE(std::string(e.what()).find("of synthetic small (seed 1) / test: cancelled"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
