#include "data/batch_loader.h"

#include <chrono>
#include <stdexcept>
#include <utility>

#include <ATen/ATen.h>

#include "data/benchmark.h"

namespace hnclip {

BatchLoader::BatchLoader(const PairedData& data, int num_workers, int prefetch_depth,
                         BadImageLog* skips)
    : data_(data), prefetch_depth_(prefetch_depth), skips_(skips) {
  if (num_workers < 0) throw std::invalid_argument("BatchLoader: num_workers must be >= 0");
  if (prefetch_depth < 1) throw std::invalid_argument("BatchLoader: prefetch_depth must be >= 1");
  workers_.reserve(static_cast<size_t>(num_workers));
  for (int i = 0; i < num_workers; ++i) workers_.emplace_back([this] { worker_loop(); });
}

BatchLoader::~BatchLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  ready_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void BatchLoader::schedule(std::vector<BatchRequest> requests) {
  std::map<size_t, Loaded> dropped;  // freed outside the lock
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
    requests_ = std::move(requests);
    next_claim_ = 0;
    next_deliver_ = 0;
    dropped.swap(ready_);
  }
  work_cv_.notify_all();
  ready_cv_.notify_all();
}

bool BatchLoader::next(Batch& out) {
  const auto start = std::chrono::steady_clock::now();
  auto add_wait = [&] {
    const auto waited = std::chrono::steady_clock::now() - start;
    wait_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count();
  };

  Loaded loaded;
  if (workers_.empty()) {
    // Synchronous mode: the caller's own time spent loading is time the step was not fed.
    BatchRequest request;
    uint64_t generation = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_deliver_ >= requests_.size()) return false;
      request = std::move(requests_[next_deliver_++]);
      generation = generation_;
    }
    loaded = load(std::move(request), generation);
  } else {
    std::unique_lock<std::mutex> lock(mutex_);
    // Re-evaluated on every wake-up, so a schedule() from another thread is followed too.
    ready_cv_.wait(lock, [&] {
      return stop_ || next_deliver_ >= requests_.size() || ready_.count(next_deliver_) > 0;
    });
    if (stop_ || next_deliver_ >= requests_.size()) {
      lock.unlock();
      add_wait();
      return false;
    }
    auto it = ready_.find(next_deliver_);
    loaded = std::move(it->second);
    ready_.erase(it);
    ++next_deliver_;
    lock.unlock();
    work_cv_.notify_all();  // the prefetch window moved on
  }
  add_wait();
  if (loaded.error) std::rethrow_exception(loaded.error);
  out = std::move(loaded.batch);
  return true;
}

double BatchLoader::wait_seconds() const { return static_cast<double>(wait_ns_.load()) * 1e-9; }

BatchLoader::Loaded BatchLoader::load(BatchRequest request, uint64_t generation) const {
  Loaded loaded;
  try {
    const bool pairs = !request.images.empty() && request.images.size() == request.captions.size();
    if (skips_ != nullptr && pairs) {
      load_skipping_bad_images(request, loaded.batch);
    } else if (!request.images.empty()) {
      loaded.batch.images = data_.load_images(request.images);
    }
    // A replaced schedule or shutdown makes the rest of this batch useless: skip it.
    if (generation == generation_ && !stop_ && !request.captions.empty()) {
      loaded.batch.tokens = data_.load_tokens(request.captions);
    }
    // After the bad-image skipping above, so the maps are those of the pairs that were kept.
    if (generation == generation_ && !stop_ && request.structure_maps) {
      loaded.batch.structure_maps = data_.load_structure_maps(request.images);
    }
  } catch (...) {
    loaded.error = std::current_exception();
  }
  loaded.batch.request = std::move(request);
  return loaded;
}

void BatchLoader::load_skipping_bad_images(BatchRequest& request, Batch& out) const {
  try {
    out.images = data_.load_images(request.images);
    return;
  } catch (const DataError&) {
    // Which images failed is found one by one below; the batch's order is kept.
  }
  BatchRequest kept;
  kept.structure_maps = request.structure_maps;
  std::vector<at::Tensor> images;
  std::string last_error;
  for (size_t i = 0; i < request.images.size(); ++i) {
    try {
      images.push_back(data_.load_images({request.images[i]}));
      kept.images.push_back(request.images[i]);
      kept.captions.push_back(request.captions[i]);
    } catch (const DataError& e) {
      skips_->add(request.images[i], e.what());
      last_error = e.what();
    }
  }
  if (kept.images.size() < 2) {
    throw DataError("a training batch has fewer than 2 images left after skipping bad ones (last: " +
                    last_error + ")");
  }
  out.images = at::cat(images, 0);
  request = std::move(kept);
}

void BatchLoader::worker_loop() {
  while (true) {
    BatchRequest request;
    size_t index = 0;
    uint64_t generation = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Claim only inside the window [next_deliver_, next_deliver_ + depth): this bounds memory
      // and guarantees the batch next() waits for is always the first one claimed.
      work_cv_.wait(lock, [&] {
        return stop_ || (next_claim_ < requests_.size() &&
                         next_claim_ < next_deliver_ + static_cast<size_t>(prefetch_depth_));
      });
      if (stop_) return;
      index = next_claim_++;
      request = std::move(requests_[index]);
      generation = generation_;
    }
    Loaded loaded = load(std::move(request), generation);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
      if (generation != generation_) continue;  // `loaded` of a replaced schedule dies here
      ready_.emplace(index, std::move(loaded));
    }
    ready_cv_.notify_all();
  }
}

}  // namespace hnclip
