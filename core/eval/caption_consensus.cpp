#include "eval/caption_consensus.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace hnclip {

void check_consensus_alpha(double alpha) {
  if (!(alpha >= 0.0 && alpha <= 1.0)) {
    throw std::invalid_argument("the caption-consensus weight must be between 0 and 1, not " +
                                std::to_string(alpha));
  }
}

namespace {
void check_shapes(const at::Tensor& captions, const at::Tensor& images,
                  const std::vector<int64_t>& caption_image) {
  if (captions.dim() != 2 || images.dim() != 2 || captions.size(1) != images.size(1)) {
    throw std::invalid_argument(
        "caption consensus: captions and images must be [N, d] with the same d");
  }
  if (static_cast<int64_t>(caption_image.size()) != captions.size(0)) {
    throw std::invalid_argument("caption consensus: one image id per caption is required");
  }
  for (int64_t i : caption_image) {
    if (i < 0 || i >= images.size(0)) {
      throw std::out_of_range("caption consensus: a caption's image id is out of range");
    }
  }
}

torch::Tensor image_ids(const std::vector<int64_t>& caption_image, const torch::Device& device) {
  return torch::tensor(caption_image, torch::kLong).to(device);
}

// Captions per image, as floats (the divisor of the mean).
torch::Tensor caption_counts(const torch::Tensor& ids, int64_t num_images) {
  const auto floats = torch::TensorOptions().dtype(torch::kFloat).device(ids.device());
  return torch::zeros({num_images}, floats).index_add_(0, ids, torch::ones({ids.size(0)}, floats));
}

torch::Tensor fused_rows(const torch::Tensor& captions, const torch::Tensor& images,
                         const torch::Tensor& ids, const torch::Tensor& counts, double alpha,
                         int64_t from, int64_t to) {
  const auto q = captions.slice(0, from, to);
  const auto image_score = torch::matmul(q, images.t());  // [b, I]
  if (alpha == 0.0) return image_score;
  const auto caption_score = torch::matmul(q, captions.t());  // [b, C]
  const int64_t b = to - from;
  // Sum of each image's caption scores, then the query's own caption taken out of its own image.
  auto sum = torch::zeros_like(image_score).index_add_(1, ids, caption_score);
  const auto own_image = ids.slice(0, from, to).unsqueeze(1);  // [b, 1]
  const auto self = torch::arange(from, to, ids.options()).unsqueeze(1);
  sum.scatter_add_(1, own_image, -caption_score.gather(1, self));
  auto count = counts.unsqueeze(0).expand({b, counts.size(0)}).clone();
  count.scatter_add_(1, own_image, -torch::ones({b, 1}, count.options()));
  const auto consensus = torch::where(count > 0, sum / count.clamp_min(1), image_score);
  return image_score * (1.0 - alpha) + consensus * alpha;
}
}  // namespace

at::Tensor caption_consensus_scores(const at::Tensor& captions, const at::Tensor& images,
                                    const std::vector<int64_t>& caption_image, double alpha,
                                    int64_t from, int64_t to) {
  check_consensus_alpha(alpha);
  check_shapes(captions, images, caption_image);
  torch::NoGradGuard no_grad;
  const auto c = captions.detach().to(torch::kFloat);
  const auto ids = image_ids(caption_image, c.device());
  return fused_rows(c, images.detach().to(torch::kFloat), ids, caption_counts(ids, images.size(0)),
                    alpha, from, to);
}

RetrievalResult rank_with_caption_consensus(const at::Tensor& captions, const at::Tensor& images,
                                            const std::vector<int64_t>& caption_image,
                                            double alpha, const RetrievalOptions& options) {
  check_consensus_alpha(alpha);
  check_shapes(captions, images, caption_image);
  torch::NoGradGuard no_grad;
  const auto c = captions.detach().to(torch::kFloat).contiguous();
  const auto v = images.detach().to(torch::kFloat).contiguous();
  const auto ids = image_ids(caption_image, c.device());
  const auto counts = caption_counts(ids, v.size(0));
  std::vector<std::vector<int64_t>> truth(caption_image.size());
  for (size_t q = 0; q < caption_image.size(); ++q) truth[q] = {caption_image[q]};
  // Each row block holds [b, C] caption scores beside its [b, I] image scores: the chunk is
  // bounded by both, so the memory stays O(chunk × (C + I)).
  RetrievalOptions bounded = options;
  bounded.max_chunk_elements = std::max<int64_t>(
      1, options.max_chunk_elements * v.size(0) / (v.size(0) + c.size(0)));
  return rank_scores(
      c.size(0), v.size(0),
      [&](int64_t from, int64_t to) { return fused_rows(c, v, ids, counts, alpha, from, to); },
      c.device(), truth, "t2i_consensus", bounded);
}

int64_t captions_without_siblings(const std::vector<int64_t>& caption_image, int64_t num_images) {
  std::vector<int64_t> per_image(static_cast<size_t>(num_images), 0);
  for (int64_t i : caption_image) ++per_image.at(static_cast<size_t>(i));
  int64_t alone = 0;
  for (int64_t i : caption_image) alone += per_image[static_cast<size_t>(i)] == 1 ? 1 : 0;
  return alone;
}

}  // namespace hnclip
