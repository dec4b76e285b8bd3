#pragma once
// Evaluator: encodes a split once (images and captions, batched, no gradients) and ranks both
// directions — text→image (caption queries, one true image each) and image→text (image queries,
// any of their captions is a hit).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <c10/core/Device.h>

#include "eval/retrieval_metrics.h"
#include "model/clip_model.h"
#include "train/batch_source.h"
#include "train/paired_data.h"
#include "train/train_events.h"

namespace hnclip {

using BatchSourceFactory = std::function<std::unique_ptr<BatchSource>(const PairedData&)>;

// A data-parallel evaluation's share: part `index` of `count` — images [index·n/count,
// (index+1)·n/count) of the split's n, and likewise its captions. {0, 1} is the whole split.
struct EvalShard {
  int index = 0;
  int count = 1;
};

struct EncodedSplit {
  torch::Tensor images;    // [num_images, E] L2-normalised
  torch::Tensor captions;  // [num_captions, E] L2-normalised
};

class Evaluator {
 public:
  // `split` names the data in errors ("split test: ..."), e.g. a refused non-finite feature.
  Evaluator(const PairedData& data, BatchSourceFactory make_loader, int64_t batch_size,
            RetrievalOptions options = {}, std::string split = {});
  // The shard's images and captions (rows in split order); by default the whole split.
  EncodedSplit encode(ClipModel& model, c10::Device device, EvalShard shard = {}) const;
  // Both directions; the EvalEvent's epoch/step/split are left for the caller to fill.
  EvalEvent evaluate(ClipModel& model, c10::Device device) const;
  EvalEvent rank(const EncodedSplit& encoded) const;

 private:
  const PairedData& data_;
  BatchSourceFactory make_loader_;
  int64_t batch_size_;
  RetrievalOptions options_;
  std::string split_;
};

}  // namespace hnclip
