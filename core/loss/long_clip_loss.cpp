#include "loss/long_clip_loss.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "loss/hn_contrastive_loss.h"

namespace hnclip {

at::Tensor batch_pca(const at::Tensor& features, int64_t components) {
  if (features.dim() != 2) throw std::invalid_argument("batch_pca: features must be [B, d]");
  if (components < 1) throw std::invalid_argument("batch_pca: keep at least one component");
  const int64_t rank_bound = std::min(features.size(0) - 1, features.size(1));
  if (components >= rank_bound) return features;
  const auto dtype = at::promote_types(features.scalar_type(), torch::kFloat);
  const auto x = features.to(dtype);
  const auto mean = x.mean(0, /*keepdim=*/true);
  const auto centred = x - mean;
  // Vh's first rows are the top right singular vectors (singular values in descending order).
  const auto vh = std::get<2>(torch::linalg_svd(centred, /*full_matrices=*/false));
  const auto top = vh.slice(0, 0, components);  // [k, d]
  return (torch::matmul(torch::matmul(centred, top.t()), top) + mean).to(features.scalar_type());
}

at::Tensor smoothed_clip_loss(const at::Tensor& image, const at::Tensor& text,
                              const at::Tensor& scale, double label_smoothing) {
  if (image.dim() != 2 || image.sizes() != text.sizes()) {
    throw std::invalid_argument("smoothed_clip_loss: image and text features must both be [B, d]");
  }
  if (!(label_smoothing >= 0.0 && label_smoothing < 1.0)) {
    throw std::invalid_argument("smoothed_clip_loss: label smoothing must be in [0, 1), not " +
                                std::to_string(label_smoothing));
  }
  namespace F = torch::nn::functional;
  const auto logits = scale * torch::matmul(image, text.t());
  const auto targets =
      torch::arange(image.size(0), torch::TensorOptions().dtype(torch::kLong).device(image.device()));
  const auto options = F::CrossEntropyFuncOptions().label_smoothing(label_smoothing);
  return 0.5 * (F::cross_entropy(logits, targets, options) +
                F::cross_entropy(logits.t(), targets, options));
}

LongClipLoss long_clip_loss(const at::Tensor& image, const at::Tensor& text_long,
                            const at::Tensor& text_short, const at::Tensor& scale, bool hn,
                            double gamma, const at::Tensor& text_for_g,
                            const LongClipOptions& options) {
  if (text_short.sizes() != text_long.sizes()) {
    throw std::invalid_argument("long_clip_loss: long and short caption features differ in shape");
  }
  LongClipLoss out;
  out.long_term = hn ? hn_contrastive_loss(image, text_long, scale, gamma, text_for_g).loss
                     : smoothed_clip_loss(image, text_long, scale, options.label_smoothing);
  out.short_term = smoothed_clip_loss(batch_pca(image, options.pca_components), text_short, scale,
                                      options.label_smoothing);
  out.loss = out.long_term + out.short_term;
  return out;
}

}  // namespace hnclip
