// Tests core/data/batch_loader against a fake PairedData with random load delays: schedule order,
// equality with synchronous loading, exception propagation, re-scheduling, prompt shutdown, the
// prefetch bound and wait accounting.

#include "data/batch_loader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <torch/torch.h>
#include <opencv2/imgcodecs.hpp>

#include "data/benchmark.h"
#include "data/split_data.h"
#include "support/test_dirs.h"
#include "text/word_tokenizer.h"

namespace hnclip {
namespace {

constexpr int64_t kSide = 4;      // fake image side
constexpr int64_t kFakeContext = 5;   // fake token row length
constexpr int64_t kPoison = 666;  // loading this image index throws
constexpr int64_t kBadImage = 777;  // ... throws the DataError of an undecodable file

// Image i is filled with i, caption c's tokens with c; each load sleeps a pseudo-random time
// derived from its first index, so workers finish out of order.
class FakeData : public PairedData {
 public:
  explicit FakeData(int max_delay_ms = 4) : max_delay_ms_(max_delay_ms) {}

  int64_t num_images() const override { return 1 << 20; }
  int64_t num_captions() const override { return 1 << 20; }
  int64_t caption_image(int64_t caption) const override { return caption; }
  const std::vector<int64_t>& image_captions(int64_t) const override { return none_; }
  const std::string& caption_text(int64_t) const override { return text_; }

  at::Tensor load_images(const std::vector<int64_t>& images) const override {
    ++started_;
    delay(images.empty() ? 0 : images[0]);
    at::Tensor t = torch::empty({static_cast<int64_t>(images.size()), 3, kSide, kSide});
    for (size_t k = 0; k < images.size(); ++k) {
      if (images[k] == kPoison) throw std::runtime_error("cannot load image 666");
      if (images[k] >= kBadImage && images[k] < kBadImage + 10) {
        throw DataError("/data/" + std::to_string(images[k]) + ".jpg: corrupt JPEG: Premature end");
      }
      t[static_cast<int64_t>(k)].fill_(static_cast<double>(images[k]));
    }
    return t;
  }

  at::Tensor load_tokens(const std::vector<int64_t>& captions) const override {
    delay(captions.empty() ? 0 : captions[0] + 1);
    at::Tensor t = torch::empty({static_cast<int64_t>(captions.size()), kFakeContext}, torch::kInt64);
    for (size_t k = 0; k < captions.size(); ++k) t[static_cast<int64_t>(k)].fill_(captions[k]);
    return t;
  }

  mutable std::atomic<int> started_{0};  // load_images calls begun

 private:
  void delay(int64_t seed) const {
    if (max_delay_ms_ == 0) return;
    const uint64_t h = static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull;
    std::this_thread::sleep_for(std::chrono::microseconds((h >> 40) % (max_delay_ms_ * 1000)));
  }

  int max_delay_ms_;
  std::vector<int64_t> none_;
  std::string text_ = "x";
};

// Batch b of a schedule starting at `first`: images first+3b .. +2, captions the same ids.
std::vector<BatchRequest> make_schedule(int n, int64_t first = 0) {
  std::vector<BatchRequest> s;
  for (int b = 0; b < n; ++b) {
    BatchRequest r;
    for (int64_t k = 0; k < 3; ++k) r.images.push_back(first + 3 * b + k);
    r.captions = r.images;
    s.push_back(r);
  }
  return s;
}

void expect_batch(const Batch& batch, const BatchRequest& want) {
  ASSERT_EQ(batch.request.images, want.images);
  ASSERT_EQ(batch.request.captions, want.captions);
  ASSERT_EQ(batch.images.size(0), static_cast<int64_t>(want.images.size()));
  for (size_t k = 0; k < want.images.size(); ++k) {
    ASSERT_EQ(batch.images[static_cast<int64_t>(k)].min().item<float>(), want.images[k]);
    ASSERT_EQ(batch.images[static_cast<int64_t>(k)].max().item<float>(), want.images[k]);
  }
  for (size_t k = 0; k < want.captions.size(); ++k) {
    ASSERT_EQ(batch.tokens[static_cast<int64_t>(k)][0].item<int64_t>(), want.captions[k]);
  }
}

TEST(BatchLoader, DeliversInScheduleOrderWithSeveralWorkers) {
  FakeData data;
  for (int workers : {1, 2, 4}) {
    BatchLoader loader(data, workers, 3);
    const auto schedule = make_schedule(40);
    loader.schedule(schedule);
    Batch b;
    for (const auto& want : schedule) {
      ASSERT_TRUE(loader.next(b));
      expect_batch(b, want);
    }
    EXPECT_FALSE(loader.next(b));
    EXPECT_FALSE(loader.next(b));
  }
}

TEST(BatchLoader, SameTensorsAsSynchronousLoading) {
  FakeData data(1);
  BatchLoader sync(data, 0);
  BatchLoader threaded(data, 3, 2);
  const auto schedule = make_schedule(25, 7);
  sync.schedule(schedule);
  threaded.schedule(schedule);
  Batch a;
  Batch b;
  int n = 0;
  while (sync.next(a)) {
    ASSERT_TRUE(threaded.next(b));
    EXPECT_TRUE(torch::equal(a.images, b.images));
    EXPECT_TRUE(torch::equal(a.tokens, b.tokens));
    EXPECT_EQ(a.request.images, b.request.images);
    ++n;
  }
  EXPECT_FALSE(threaded.next(b));
  EXPECT_EQ(n, 25);
}

TEST(BatchLoader, EmptyListsGiveUndefinedTensors) {
  FakeData data(0);
  for (int workers : {0, 2}) {
    BatchLoader loader(data, workers);
    Batch b;
    EXPECT_FALSE(loader.next(b));  // nothing scheduled yet
    BatchRequest images_only;
    images_only.images = {1, 2};
    BatchRequest captions_only;
    captions_only.captions = {3};
    loader.schedule({images_only, captions_only});
    ASSERT_TRUE(loader.next(b));
    EXPECT_TRUE(b.images.defined());
    EXPECT_FALSE(b.tokens.defined());
    ASSERT_TRUE(loader.next(b));
    EXPECT_FALSE(b.images.defined());
    EXPECT_EQ(b.tokens.size(0), 1);
    EXPECT_FALSE(loader.next(b));
  }
}

TEST(BatchLoader, WorkerExceptionIsRethrownForItsBatchOnly) {
  FakeData data;
  for (int workers : {0, 1, 3}) {
    BatchLoader loader(data, workers, 4);
    auto schedule = make_schedule(12);
    schedule[5].images[1] = kPoison;
    loader.schedule(schedule);
    Batch b;
    for (int i = 0; i < 12; ++i) {
      if (i == 5) {
        try {
          loader.next(b);
          FAIL() << "batch 5 should throw (workers " << workers << ")";
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "cannot load image 666");
        }
        continue;
      }
      ASSERT_TRUE(loader.next(b));
      expect_batch(b, schedule[static_cast<size_t>(i)]);
    }
    EXPECT_FALSE(loader.next(b));
  }
}

TEST(BatchLoader, RescheduleMidwayDeliversOnlyTheNewSchedule) {
  FakeData data;
  for (int workers : {0, 1, 4}) {
    BatchLoader loader(data, workers, 4);
    loader.schedule(make_schedule(30));
    Batch b;
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(loader.next(b));
    std::this_thread::sleep_for(std::chrono::milliseconds(3));  // let loads be in flight
    const auto fresh = make_schedule(10, 100000);
    loader.schedule(fresh);
    for (const auto& want : fresh) {
      ASSERT_TRUE(loader.next(b));
      expect_batch(b, want);
    }
    EXPECT_FALSE(loader.next(b));
    // Replacing an exhausted schedule works too, and an empty one ends at once.
    loader.schedule(make_schedule(2, 500));
    ASSERT_TRUE(loader.next(b));
    expect_batch(b, make_schedule(2, 500)[0]);
    loader.schedule({});
    EXPECT_FALSE(loader.next(b));
  }
}

TEST(BatchLoader, DestructorMidScheduleIsPrompt) {
  FakeData data(20);  // each load call sleeps up to 20 ms
  constexpr int kDepth = 4;
  for (int consumed : {0, 2}) {
    const int started_before = data.started_.load();
    auto loader = std::make_unique<BatchLoader>(data, 4, kDepth);
    loader->schedule(make_schedule(1000));
    Batch b;
    for (int i = 0; i < consumed; ++i) ASSERT_TRUE(loader->next(b));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    loader.reset();
    // Prompt: the destructor waits for the loads in flight, never for the rest of the schedule.
    // How long it takes is measured in tests/bench/batch_loader_shutdown.cpp (no timed asserts).
    EXPECT_LE(data.started_.load() - started_before, consumed + kDepth);
  }
}

TEST(BatchLoader, NeverLoadsMoreThanPrefetchDepthAhead) {
  FakeData data(1);
  constexpr int kDepth = 3;
  BatchLoader loader(data, 4, kDepth);
  loader.schedule(make_schedule(30));
  Batch b;
  int delivered = 0;
  int most_ahead = 0;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(4));  // a slow consumer
    most_ahead = std::max(most_ahead, data.started_.load() - delivered);
    if (!loader.next(b)) break;
    ++delivered;
  }
  EXPECT_EQ(delivered, 30);
  EXPECT_LE(most_ahead, kDepth);
  EXPECT_GE(most_ahead, 2);  // and it did prefetch
}

TEST(BatchLoader, WaitSecondsCountsBlockedTime) {
  FakeData data(10);
  BatchLoader loader(data, 1, 2);
  EXPECT_EQ(loader.wait_seconds(), 0.0);
  loader.schedule(make_schedule(5));
  Batch b;
  while (loader.next(b)) {
  }
  // 5 batches of two loads each, up to 10 ms per load, consumed at once: mostly waiting.
  EXPECT_GT(loader.wait_seconds(), 0.005);
  EXPECT_LT(loader.wait_seconds(), 5.0);
}

TEST(BatchLoader, RejectsBadArguments) {
  FakeData data;
  EXPECT_THROW(BatchLoader(data, -1), std::invalid_argument);
  EXPECT_THROW(BatchLoader(data, 1, 0), std::invalid_argument);
}

// --skip-bad-images: a training pair whose image fails to decode leaves its batch (captions
// with it, order kept) and is logged; everything else still fails.
TEST(BatchLoader, SkippingDropsABadImagesPairAndLogsIt) {
  FakeData data(0);
  BadImageLog log;
  for (int workers : {0, 2}) {
    BatchLoader loader(data, workers, 4, &log);
    BatchRequest pairs{{5, kBadImage, 9}, {50, 51, 52}};
    BatchRequest ok{{1, 2}, {10, 20}};
    loader.schedule({pairs, ok});
    Batch b;
    ASSERT_TRUE(loader.next(b));
    EXPECT_EQ(b.request.images, (std::vector<int64_t>{5, 9}));
    EXPECT_EQ(b.request.captions, (std::vector<int64_t>{50, 52}));
    ASSERT_EQ(b.images.size(0), 2);
    EXPECT_EQ(b.images[1][0][0][0].item<float>(), 9.0f);
    EXPECT_EQ(b.tokens[1][0].item<int64_t>(), 52);
    ASSERT_TRUE(loader.next(b));
    EXPECT_EQ(b.request.images.size(), 2u);
    EXPECT_FALSE(loader.next(b));
  }
  EXPECT_EQ(log.pairs_dropped(), 2);  // once per pass
  EXPECT_EQ(log.images(), (std::vector<int64_t>{kBadImage}));
  const auto summary = log.summary({{"image_ids", {3, kBadImage}}, {"pairs_dropped", 4}});
  EXPECT_EQ(summary["images"], 2);  // merged with a resumed run's earlier record, once each
  EXPECT_EQ(summary["pairs_dropped"], 6);
  EXPECT_NE(summary["examples"][0].get<std::string>().find("/data/777.jpg"), std::string::npos);

  // Evaluation batches (images only), a batch left with one pair, and no log at all: all fail.
  BatchLoader eval(data, 0, 4, &log);
  eval.schedule({BatchRequest{{1, kBadImage}, {}}});
  Batch b;
  EXPECT_THROW(eval.next(b), DataError);
  BatchLoader mostly_bad(data, 0, 4, &log);
  mostly_bad.schedule({BatchRequest{{kBadImage, kBadImage + 1, 3}, {1, 2, 3}}});
  EXPECT_THROW(mostly_bad.next(b), DataError);
  BatchLoader strict(data, 0);
  strict.schedule({BatchRequest{{5, kBadImage, 9}, {50, 51, 52}}});
  EXPECT_THROW(strict.next(b), DataError);
}

}  // namespace
}  // namespace hnclip
