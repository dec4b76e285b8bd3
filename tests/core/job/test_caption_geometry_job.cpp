// caption_geometry_for as the workbench calls it off the GUI thread: progress is reported in
// order and reaches 1, a cancel flag set mid-way ends the call with CaptionGeometryCancelled and
// leaves nothing in the store, and the same request without cancel then stores its geometry.
// Built-in benchmark (size small) with the pretrained starting checkpoint.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "job/caption_geometry_job.h"
#include "job/workbench_paths.h"
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

// Stored geometry is keyed by the encoder file's path. A file written again since (a new export or
// pretrain to the same name) has other weights: its stored geometry was served as its own
// (`stats --encoder ckpt:enc.pt` printed the old file's 0.106 mean pairwise cosine where the new
// one's was 0.097). Such a file is measured again, and the log says why.
TEST(CaptionGeometryJob, AnEncoderFileWrittenAgainIsMeasuredAgain) {
  hnclip::test::ScratchDir dir;
  const hnclip::JobPaths paths{(dir / "runs.db").string(), (dir / "cache").string()};
  const auto file = dir / "enc.pt";
  const auto pretrained = hnclip::resolve_init_checkpoint("pretrained");
  std::filesystem::copy_file(pretrained, file);
  auto request = small_request(dir);
  request.encoder = "ckpt:" + file.string();
  std::vector<std::string> lines;
  const hnclip::JobLog log = [&](const std::string& line) { lines.push_back(line); };
  EXPECT_TRUE(hnclip::caption_geometry_for(request, paths, log).computed);
  EXPECT_FALSE(hnclip::caption_geometry_for(request, paths, log).computed) << "not read back";

  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a later modification time
  std::filesystem::copy_file(pretrained, file, std::filesystem::copy_options::overwrite_existing);
  lines.clear();
  EXPECT_TRUE(hnclip::caption_geometry_for(request, paths, log).computed)
      << "the stored geometry of the file's earlier contents was served";
  bool said = false;
  for (const auto& l : lines) said = said || l.find("was written again") != std::string::npos;
  EXPECT_TRUE(said) << "the log did not say why it measured again";
  // Stored anew: read back again until the file changes once more.
  EXPECT_FALSE(hnclip::caption_geometry_for(request, paths, log).computed);
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

// A request refused or cancelled before anything is computed leaves no database behind: `stats
// --db new.db --split nosuch` and `--encoder run:5` on a new --db each left an empty 110 kB
// database, made by the stored-result lookup before the refusal. Only a computed result creates it.
TEST(CaptionGeometryJob, ARefusedRequestCreatesNoDatabase) {
  hnclip::test::ScratchDir dir;
  const hnclip::JobPaths paths{(dir / "new.db").string(), (dir / "cache").string()};
  auto unknown_split = small_request(dir);
  unknown_split.split = "nosuch";
  EXPECT_THROW(hnclip::caption_geometry_for(unknown_split, paths), hnclip::ConfigError);
  EXPECT_FALSE(std::filesystem::exists(paths.database)) << "an unknown split created the database";

  auto no_run = small_request(dir);
  no_run.encoder = "run:5";
  try {
    hnclip::caption_geometry_for(no_run, paths);
    FAIL() << "run:5 of a missing database was accepted";
  } catch (const hnclip::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no database at " + paths.database), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(paths.database)) << "run:5 created the database";

  auto cancelled = small_request(dir);
  std::atomic<bool> cancel{true};
  cancelled.cancel = &cancel;
  EXPECT_THROW(hnclip::caption_geometry_for(cancelled, paths), hnclip::CaptionGeometryCancelled);
  EXPECT_FALSE(std::filesystem::exists(paths.database)) << "a cancelled request created it";

  EXPECT_TRUE(hnclip::caption_geometry_for(small_request(dir), paths).computed);
  EXPECT_TRUE(std::filesystem::exists(paths.database)) << "the computed result was not stored";
}

// A run encoder is labelled with its name when it has one: an unnamed run read "run 1 (), epoch 1"
// in `stats`, `neighbors` and the Captions tab.
TEST(CaptionGeometryJob, ARunEncodersLabelNamesTheRunOnlyWhenItHasAName) {
  hnclip::test::ScratchDir dir;
  const auto db = (dir / "runs.db").string();
  const auto file = (dir / "epoch-1.pt").string();
  hnclip::test::write_text_file(file, "weights");
  {
    hnclip::RunStore store(db);
    hnclip::RunRecord r;
    const int64_t unnamed = store.create_run(r);
    r.name = "gamma 0.5";
    const int64_t named = store.create_run(r);
    for (const int64_t id : {unnamed, named}) store.add_checkpoint(id, {1, 10, file, 0.0, 0});
  }
  EXPECT_EQ(hnclip::resolve_caption_encoder("run:1", db).label, "run 1, epoch 1");
  EXPECT_EQ(hnclip::resolve_caption_encoder("run:2", db).label, "run 2 (gamma 0.5), epoch 1");
}

}  // namespace
