#pragma once
// BatchLoader: the BatchSource that loads scheduled batches of a PairedData ahead of the consumer
// on worker threads, and hands them out strictly in schedule order.
//
// Ownership: borrows `data`, which must outlive the loader; owns its threads and the batches it
// has loaded but not yet handed out.
// Threading: one consumer thread calls schedule() / next(); wait_seconds() may be read from any
// thread. The workers call only PairedData's thread-safe loaders, which fill tensors with plain
// memory writes — no parallel ATen ops — so they leave LibTorch's (process-global) intra-op
// thread count alone; the trainer sets it for its own thread.
// Memory: at most prefetch_depth batches of the current schedule are loaded or being loaded at
// once; batches of a replaced schedule still being loaded (one per worker at most) are dropped
// when done, so no more than prefetch_depth + num_workers batches exist at any time.
// Cancellation: a replaced schedule's in-flight loads are not interrupted (a PairedData load is
// one call), so schedule() and the destructor return at once but a worker may take up to one
// load_images / load_tokens call to notice; the destructor joins after that call.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "data/bad_image_log.h"
#include "train/batch_source.h"
#include "train/paired_data.h"

namespace hnclip {

class BatchLoader : public BatchSource {
 public:
  // num_workers = 0 loads synchronously inside next() (deterministic, for tests and debugging).
  // Throws std::invalid_argument for num_workers < 0 or prefetch_depth < 1.
  // `skips` (optional, must outlive the loader): a training batch (images[i] paired with
  // captions[i]) whose image fails to decode drops that pair and logs it there, instead of
  // failing; a batch left with fewer than 2 pairs, and image-only or caption-only batches
  // (evaluation), still fail.
  BatchLoader(const PairedData& data, int num_workers, int prefetch_depth = 4,
              BadImageLog* skips = nullptr);
  ~BatchLoader() override;

  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  void schedule(std::vector<BatchRequest> requests) override;
  bool next(Batch& out) override;
  double wait_seconds() const override;

 private:
  // A loaded batch, or the exception its loading threw (rethrown by next() in its turn).
  struct Loaded {
    Batch batch;
    std::exception_ptr error;
  };

  void worker_loop();
  // Loads one request on the calling thread; stops between tensors once `generation` is stale.
  Loaded load(BatchRequest request, uint64_t generation) const;
  // The pairs of `request` whose images load, one by one; the failures go to skips_.
  void load_skipping_bad_images(BatchRequest& request, Batch& out) const;

  const PairedData& data_;
  const int prefetch_depth_;
  BadImageLog* skips_;

  mutable std::mutex mutex_;
  std::condition_variable work_cv_;   // workers: a batch became claimable, or stop
  std::condition_variable ready_cv_;  // consumer: a batch became ready, or schedule changed
  std::vector<BatchRequest> requests_;  // current schedule; claimed entries are moved out
  size_t next_claim_ = 0;               // next request a worker will load
  size_t next_deliver_ = 0;             // next request next() hands out
  std::map<size_t, Loaded> ready_;      // loaded, not yet handed out (current schedule only)
  std::atomic<uint64_t> generation_{0};  // bumped by schedule(); stale loads are dropped
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> wait_ns_{0};
  std::vector<std::thread> workers_;
};

}  // namespace hnclip
