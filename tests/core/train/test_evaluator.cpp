// Tests Evaluator's shards (a data-parallel run's sharded evaluation): the shards of a split,
// encoded separately and concatenated in shard order, are the whole split's features — for shard
// counts that do not divide the split and for more shards than rows — and ranking the
// concatenation gives the whole split's recall.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/make_clip_model.h"
#include "support/in_memory_data.h"
#include "train/evaluator.h"

namespace {

using hnclip::test::InMemoryPairedData;
using hnclip::test::SyncBatchSource;

constexpr int64_t kRows = 23;       // prime: no shard count divides it
constexpr int64_t kEvalBatch = 5;   // batches that straddle the shard edges

hnclip::Evaluator evaluator_for(const InMemoryPairedData& data) {
  return hnclip::Evaluator(
      data, [](const hnclip::PairedData& d) { return std::make_unique<SyncBatchSource>(d); },
      kEvalBatch);
}

TEST(Evaluator, ShardsConcatenatedInOrderAreTheWholeSplit) {
  InMemoryPairedData data(kRows);
  auto model = hnclip::make_clip_model(hnclip::test::tiny_test_config(), 3);
  const auto evaluator = evaluator_for(data);
  const auto whole = evaluator.encode(model, torch::kCPU);
  ASSERT_EQ(whole.images.size(0), kRows);
  ASSERT_EQ(whole.captions.size(0), kRows);
  for (const int count : {2, 3, 7}) {
    std::vector<torch::Tensor> images, captions;
    for (int index = 0; index < count; ++index) {
      const auto part = evaluator.encode(model, torch::kCPU, {index, count});
      // Shard `index` holds rows [index·n/count, (index+1)·n/count).
      EXPECT_EQ(part.images.size(0), kRows * (index + 1) / count - kRows * index / count);
      EXPECT_EQ(part.captions.size(0), part.images.size(0));
      images.push_back(part.images);
      captions.push_back(part.captions);
    }
    const hnclip::EncodedSplit joined{torch::cat(images), torch::cat(captions)};
    EXPECT_TRUE(torch::allclose(joined.images, whole.images, 0, 1e-6)) << count << " shards";
    EXPECT_TRUE(torch::allclose(joined.captions, whole.captions, 0, 1e-6)) << count << " shards";
    const auto a = evaluator.rank(joined), b = evaluator.rank(whole);
    EXPECT_DOUBLE_EQ(a.t2i.recall_at(1), b.t2i.recall_at(1)) << count << " shards";
    EXPECT_DOUBLE_EQ(a.i2t.recall_at(5), b.i2t.recall_at(5)) << count << " shards";
  }
}

TEST(Evaluator, AShardWithoutRowsIsEmptyNotAnError) {
  InMemoryPairedData data(3);
  auto model = hnclip::make_clip_model(hnclip::test::tiny_test_config(), 3);
  const auto evaluator = evaluator_for(data);
  // Four shards of three rows: shard 0 gets none ([0·3/4, 1·3/4) = [0, 0)).
  const auto part = evaluator.encode(model, torch::kCPU, {0, 4});
  EXPECT_EQ(part.images.size(0), 0);
  EXPECT_EQ(part.images.size(1), hnclip::test::tiny_test_config().embed_dim);
  EXPECT_EQ(part.captions.size(0), 0);
  int64_t rows = 0;
  for (int index = 0; index < 4; ++index) rows += evaluator.encode(model, torch::kCPU, {index, 4}).images.size(0);
  EXPECT_EQ(rows, 3);
}

}  // namespace
