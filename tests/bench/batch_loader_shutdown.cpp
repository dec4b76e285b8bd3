// batch_loader_shutdown: how long destroying a BatchLoader mid-schedule takes (4 workers,
// prefetch depth 4, a 1000-batch schedule, 0 or 2 batches consumed), next to its peer: one
// synchronous batch of the same data (its image and token loads), since the destructor has to
// wait for the loads in flight and nothing else. `x_one_batch` is the ratio of the two (about 1
// or below: shutdown waits for in-flight loads, never for the rest of the schedule). This is the
// measurement tests/core/data/test_batch_loader.cpp used to assert (< 100 ms) as a timed test.
//
// Usage: batch_loader_shutdown [Google Benchmark flags, e.g. --benchmark_repetitions=5]
// The data is a fake whose loads sleep a pseudo-random 0-20 ms (no files, no decoding).

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "data/batch_loader.h"

namespace {

using hnclip::Batch;
using hnclip::BatchLoader;
using hnclip::BatchRequest;
using Clock = std::chrono::steady_clock;

constexpr int kMaxDelayMs = 20;  // each load call sleeps up to this long
constexpr int kWorkers = 4;
constexpr int kPrefetchDepth = 4;
constexpr int kScheduleBatches = 1000;
constexpr int kPeerBatches = 20;  // synchronous batches averaged for the peer
constexpr int kSettleMs = 5;      // loads in flight before the destructor runs

// Image i is filled with i, caption c's tokens with c; each load sleeps a pseudo-random time
// derived from its first index (as the unit test's fake does).
class FakeData : public hnclip::PairedData {
 public:
  int64_t num_images() const override { return 1 << 20; }
  int64_t num_captions() const override { return 1 << 20; }
  int64_t caption_image(int64_t caption) const override { return caption; }
  const std::vector<int64_t>& image_captions(int64_t) const override { return none_; }
  const std::string& caption_text(int64_t) const override { return text_; }

  at::Tensor load_images(const std::vector<int64_t>& images) const override {
    delay(images.empty() ? 0 : images[0]);
    at::Tensor t = torch::empty({static_cast<int64_t>(images.size()), 3, 4, 4});
    for (size_t k = 0; k < images.size(); ++k) {
      t[static_cast<int64_t>(k)].fill_(static_cast<double>(images[k]));
    }
    return t;
  }

  at::Tensor load_tokens(const std::vector<int64_t>& captions) const override {
    delay(captions.empty() ? 0 : captions[0] + 1);
    at::Tensor t = torch::empty({static_cast<int64_t>(captions.size()), 5}, torch::kInt64);
    for (size_t k = 0; k < captions.size(); ++k) t[static_cast<int64_t>(k)].fill_(captions[k]);
    return t;
  }

 private:
  static void delay(int64_t seed) {
    const uint64_t h = static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull;
    std::this_thread::sleep_for(std::chrono::microseconds((h >> 40) % (kMaxDelayMs * 1000)));
  }

  std::vector<int64_t> none_;
  std::string text_ = "x";
};

std::vector<BatchRequest> make_schedule(int n) {
  std::vector<BatchRequest> s;
  for (int b = 0; b < n; ++b) {
    BatchRequest r;
    for (int64_t k = 0; k < 3; ++k) r.images.push_back(3 * b + k);
    r.captions = r.images;
    s.push_back(r);
  }
  return s;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The peer: mean seconds of one batch loaded synchronously (no workers).
double one_batch_seconds(const FakeData& data) {
  BatchLoader sync(data, 0);
  sync.schedule(make_schedule(kPeerBatches));
  Batch b;
  const auto start = Clock::now();
  int n = 0;
  while (sync.next(b)) ++n;
  return seconds_since(start) / n;
}

void BM_DestroyMidSchedule(benchmark::State& state) {
  const int consumed = static_cast<int>(state.range(0));
  const FakeData data;
  const double peer = one_batch_seconds(data);
  double total = 0;
  for (auto _ : state) {
    auto loader = std::make_unique<BatchLoader>(data, kWorkers, kPrefetchDepth);
    loader->schedule(make_schedule(kScheduleBatches));
    Batch b;
    for (int i = 0; i < consumed; ++i) loader->next(b);
    std::this_thread::sleep_for(std::chrono::milliseconds(kSettleMs));
    const auto start = Clock::now();
    loader.reset();
    const double s = seconds_since(start);
    state.SetIterationTime(s);
    total += s;
  }
  state.counters["one_batch_ms"] = peer * 1e3;
  state.counters["x_one_batch"] = total / static_cast<double>(state.iterations()) / peer;
}
BENCHMARK(BM_DestroyMidSchedule)
    ->Arg(0)
    ->Arg(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
