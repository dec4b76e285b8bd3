// RunStore's caption geometry tables (schema v4): a (dataset, encoder) result round-trips, a
// second write replaces the first as a whole, and other keys are left alone.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/run_store.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

CaptionGeometryRecord sample_record(const std::string& dataset, const std::string& encoder,
                                    int captions) {
  CaptionGeometryRecord r;
  auto& s = r.stats;
  s.dataset_key = dataset;
  s.encoder_key = encoder;
  s.train_images = 400;
  s.test_images = 100;
  s.captions = captions;
  s.mean_words = 31.25;
  s.mean_pairwise = 0.4123456789012345;
  s.mean_hardest = 0.9;
  s.median_hardest = 0.95;
  s.batch_size = 128;
  s.bucket_fractions = {0.5, 0.25, 0.125, 0.0625, 0.0625};
  s.bucket_counts = {8, 4, 2, 1, 1};
  s.pairwise_histogram = {0, 3, 5, 0, 2};
  s.hardest_histogram = {0, 0, 1, 1, 0};
  s.created_at_ms = 1234;
  for (int c = 0; c < captions; ++c) {
    for (int k = 1; k <= 3; ++k) {
      r.neighbors.push_back({c, k, (c + k) % captions, 1.0 - 0.1 * k, {"red", "cube"}});
    }
  }
  r.neighbors.back().shared_words = {};
  r.pairs = {{1, 0, 1, 0.99}, {2, 2, 3, 0.5}};
  return r;
}

TEST(CaptionGeometryStore, RoundTripReplaceAndKeys) {
  test::ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  EXPECT_GE(store.schema_version(), 4);
  EXPECT_FALSE(store.caption_geometry("synthetic:size=small:seed=1#test", "init:/p.pt"));

  const auto a = sample_record("synthetic:size=small:seed=1#test", "init:/p.pt", 5);
  store.write_caption_geometry(a);
  store.write_caption_geometry(sample_record("synthetic:size=small:seed=1#test", "run:3@2", 4));

  auto back = store.caption_geometry("synthetic:size=small:seed=1#test", "init:/p.pt");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stats.train_images, 400);
  EXPECT_EQ(back->stats.test_images, 100);
  EXPECT_EQ(back->stats.captions, 5);
  EXPECT_EQ(back->stats.mean_pairwise, a.stats.mean_pairwise);  // doubles round-trip exactly
  EXPECT_EQ(back->stats.median_hardest, 0.95);
  EXPECT_EQ(back->stats.batch_size, 128);
  EXPECT_EQ(back->stats.bucket_fractions, a.stats.bucket_fractions);
  EXPECT_EQ(back->stats.bucket_counts, a.stats.bucket_counts);
  EXPECT_EQ(back->stats.pairwise_histogram, a.stats.pairwise_histogram);
  EXPECT_EQ(back->stats.hardest_histogram, a.stats.hardest_histogram);
  EXPECT_EQ(back->stats.created_at_ms, 1234);
  ASSERT_EQ(back->neighbors.size(), 15u);
  for (size_t i = 0; i < a.neighbors.size(); ++i) {
    EXPECT_EQ(back->neighbors[i].caption, a.neighbors[i].caption);
    EXPECT_EQ(back->neighbors[i].rank, a.neighbors[i].rank);
    EXPECT_EQ(back->neighbors[i].neighbor, a.neighbors[i].neighbor);
    EXPECT_EQ(back->neighbors[i].cosine, a.neighbors[i].cosine);
    EXPECT_EQ(back->neighbors[i].shared_words, a.neighbors[i].shared_words);
  }
  ASSERT_EQ(back->pairs.size(), 2u);
  EXPECT_EQ(back->pairs[0].a, 0);
  EXPECT_EQ(back->pairs[0].b, 1);
  EXPECT_EQ(back->pairs[1].rank, 2);
  EXPECT_EQ(back->pairs[1].cosine, 0.5);

  const auto one = store.caption_neighbors("synthetic:size=small:seed=1#test", "init:/p.pt", 2);
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(one[0].rank, 1);
  EXPECT_EQ(one[0].neighbor, 3);

  // A second write for the same keys replaces everything (fewer captions: no stale rows left).
  auto smaller = sample_record("synthetic:size=small:seed=1#test", "init:/p.pt", 2);
  smaller.pairs.resize(1);
  smaller.stats.mean_words = 7;
  store.write_caption_geometry(smaller);
  back = store.caption_geometry("synthetic:size=small:seed=1#test", "init:/p.pt");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stats.mean_words, 7);
  EXPECT_EQ(back->neighbors.size(), 6u);
  EXPECT_EQ(back->pairs.size(), 1u);
  // The other encoder's result is untouched.
  const auto other = store.caption_geometry("synthetic:size=small:seed=1#test", "run:3@2");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->neighbors.size(), 12u);
  EXPECT_EQ(other->pairs.size(), 2u);
}

TEST(CaptionGeometryStore, FailedWriteLeavesEarlierResult) {
  test::ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  store.write_caption_geometry(sample_record("d#test", "ckpt:/x.pt", 3));
  auto bad = sample_record("d#test", "ckpt:/x.pt", 3);
  bad.neighbors.push_back(bad.neighbors.front());  // duplicate (caption, rank): the insert fails
  bad.stats.mean_words = 99;
  EXPECT_THROW(store.write_caption_geometry(bad), StoreError);
  const auto back = store.caption_geometry("d#test", "ckpt:/x.pt");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stats.mean_words, 31.25);
  EXPECT_EQ(back->neighbors.size(), 9u);
}

}  // namespace
}  // namespace hnclip
