#include "train/evaluator.h"

#include <torch/torch.h>

#include <algorithm>

#include "fault/fault_point.h"
#include "numeric/non_finite_values.h"

namespace hnclip {

namespace {
// Requests for ids [begin, end) in batches.
std::vector<BatchRequest> chunked(int64_t begin, int64_t end, int64_t batch, bool images) {
  std::vector<BatchRequest> out;
  for (int64_t start = begin; start < end; start += batch) {
    BatchRequest r;
    auto& ids = images ? r.images : r.captions;
    for (int64_t i = start; i < std::min(end, start + batch); ++i) ids.push_back(i);
    out.push_back(std::move(r));
  }
  return out;
}

int64_t shard_edge(int64_t n, const EvalShard& shard, int part) {
  return n * part / shard.count;
}
}  // namespace

Evaluator::Evaluator(const PairedData& data, BatchSourceFactory make_loader, int64_t batch_size,
                     RetrievalOptions options, std::string split)
    : data_(data), make_loader_(std::move(make_loader)), batch_size_(batch_size),
      options_(std::move(options)), split_(std::move(split)) {}

EncodedSplit Evaluator::encode(ClipModel& model, c10::Device device, EvalShard shard) const {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const int64_t ni = data_.num_images(), nc = data_.num_captions();
  auto requests = chunked(shard_edge(ni, shard, shard.index), shard_edge(ni, shard, shard.index + 1),
                          batch_size_, true);
  auto captions = chunked(shard_edge(nc, shard, shard.index), shard_edge(nc, shard, shard.index + 1),
                          batch_size_, false);
  requests.insert(requests.end(), captions.begin(), captions.end());
  auto loader = make_loader_(data_);
  const size_t half = requests.size() / 2;  // where the kill tests' "eval" point sits
  loader->schedule(std::move(requests));
  std::vector<torch::Tensor> image_parts, caption_parts;
  Batch batch;
  while (loader->next(batch)) {
    if (image_parts.size() + caption_parts.size() == half) fault_point("eval");
    if (!batch.request.images.empty()) {
      auto f = model->encode_image(batch.images.to(device)).pooled;
      image_parts.push_back(torch::nn::functional::normalize(f, torch::nn::functional::NormalizeFuncOptions().dim(-1)));
    } else {
      auto f = model->encode_text(batch.tokens.to(device)).pooled;
      caption_parts.push_back(torch::nn::functional::normalize(f, torch::nn::functional::NormalizeFuncOptions().dim(-1)));
    }
  }
  if (was_training) model->train();
  // A shard may hold no images or no captions (a split smaller than the world).
  const auto rows = [&](const std::vector<torch::Tensor>& parts) {
    return parts.empty() ? torch::zeros({0, model->config().embed_dim},
                                        torch::TensorOptions().device(device))
                         : torch::cat(parts, 0);
  };
  return {rows(image_parts), rows(caption_parts)};
}

EvalEvent Evaluator::rank(const EncodedSplit& encoded) const {
  std::vector<std::vector<int64_t>> caption_truth(data_.num_captions());
  for (int64_t c = 0; c < data_.num_captions(); ++c) caption_truth[c] = {data_.caption_image(c)};
  std::vector<std::vector<int64_t>> image_truth(data_.num_images());
  for (int64_t i = 0; i < data_.num_images(); ++i) image_truth[i] = data_.image_captions(i);
  const std::string where = split_.empty() ? std::string("evaluation") : "split " + split_;
  // Checked here as well as in rank_retrieval so the message says image or caption, not query.
  for (const auto& [features, what] : {std::pair{encoded.images, "image"},
                                       std::pair{encoded.captions, "caption"}}) {
    if (const auto bad = find_non_finite(features)) {
      throw NonFiniteError(where + ": the feature of " + what + " " + std::to_string(bad->first[0]) +
                           " is not finite (" + describe(*bad) +
                           "); refusing to rank: the model's weights or inputs are broken");
    }
  }
  EvalEvent ev;
  try {
    ev.t2i = rank_retrieval(encoded.captions, encoded.images, caption_truth, "t2i", options_);
    ev.i2t = rank_retrieval(encoded.images, encoded.captions, image_truth, "i2t", options_);
  } catch (const NonFiniteError& e) {
    throw NonFiniteError(where + ": " + e.what());
  }
  return ev;
}

EvalEvent Evaluator::evaluate(ClipModel& model, c10::Device device) const {
  return rank(encode(model, device));
}

}  // namespace hnclip
