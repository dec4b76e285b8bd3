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

struct EncodedSplit {
  torch::Tensor images;    // [num_images, E] L2-normalised
  torch::Tensor captions;  // [num_captions, E] L2-normalised
};

class Evaluator {
 public:
  // `split` names the data in errors ("split test: ..."), e.g. a refused non-finite feature.
  Evaluator(const PairedData& data, BatchSourceFactory make_loader, int64_t batch_size,
            RetrievalOptions options = {}, std::string split = {});
  EncodedSplit encode(ClipModel& model, c10::Device device) const;
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
