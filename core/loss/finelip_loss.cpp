#include "loss/finelip_loss.h"

#include <torch/torch.h>

#include <stdexcept>

namespace hnclip {

at::Tensor finelip_similarity(const at::Tensor& image_tokens, const at::Tensor& text_tokens,
                              double negative_slope) {
  if (image_tokens.dim() != 3 || text_tokens.dim() != 3 ||
      image_tokens.size(2) != text_tokens.size(2)) {
    throw std::invalid_argument("finelip_similarity: tokens must be [B, K, d] of one width d");
  }
  namespace F = torch::nn::functional;
  // [B_i, B_t, K_i, K_t]: small here (K of a few dozen), so no chunking.
  const auto a = F::leaky_relu(torch::einsum("ikd,jld->ijkl", {image_tokens, text_tokens}),
                               F::LeakyReLUFuncOptions().negative_slope(negative_slope));
  const auto t2i = std::get<0>(a.max(2)).mean(2);  // per text token its best image token
  const auto i2t = std::get<0>(a.max(3)).mean(2);  // per image token its best text token
  return t2i + i2t;
}

at::Tensor triplet_hinge_loss(const at::Tensor& similarity, double margin, bool hardest) {
  if (similarity.dim() != 2 || similarity.size(0) != similarity.size(1)) {
    throw std::invalid_argument("triplet_hinge_loss: the similarity matrix must be square");
  }
  const auto diag = similarity.diagonal().unsqueeze(1);  // [B, 1]
  const auto eye = torch::eye(similarity.size(0), torch::TensorOptions()
                                                      .dtype(torch::kBool)
                                                      .device(similarity.device()));
  // Image i against caption j (row) and caption j against image i (column).
  auto cost_caption = (margin + similarity - diag).clamp_min(0).masked_fill(eye, 0);
  auto cost_image = (margin + similarity - diag.t()).clamp_min(0).masked_fill(eye, 0);
  if (hardest) {
    return std::get<0>(cost_caption.max(1)).sum() + std::get<0>(cost_image.max(0)).sum();
  }
  return cost_caption.sum() + cost_image.sum();
}

at::Tensor finelip_loss(const at::Tensor& image_tokens, const at::Tensor& text_tokens,
                        const FinelipOptions& options) {
  return triplet_hinge_loss(
      finelip_similarity(image_tokens, text_tokens, options.negative_slope), options.margin,
      options.hardest_negative);
}

}  // namespace hnclip
