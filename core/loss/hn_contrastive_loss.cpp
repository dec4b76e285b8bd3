#include "loss/hn_contrastive_loss.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

namespace hnclip {

namespace {
at::Tensor diagonal_targets(const at::Tensor& logits) {
  return torch::arange(logits.size(0), logits.options().dtype(torch::kLong));
}

at::Tensor symmetric_cross_entropy(const at::Tensor& logits_i2t, const at::Tensor& logits_t2i) {
  const auto targets = diagonal_targets(logits_i2t);
  return 0.5 * (torch::nn::functional::cross_entropy(logits_i2t, targets) +
                torch::nn::functional::cross_entropy(logits_t2i, targets));
}

void check_pair(const at::Tensor& image, const at::Tensor& text) {
  if (image.dim() != 2 || text.dim() != 2 || image.sizes() != text.sizes()) {
    throw std::invalid_argument("contrastive loss: image and text features must both be [B, d]");
  }
}
}  // namespace

at::Tensor caption_margins(const at::Tensor& text_for_g) {
  torch::NoGradGuard no_grad;
  auto g = torch::matmul(text_for_g.detach(), text_for_g.detach().t());
  g.fill_diagonal_(0.0);
  return g;
}

at::Tensor info_nce_loss(const at::Tensor& image, const at::Tensor& text, const at::Tensor& scale) {
  check_pair(image, text);
  const auto logits = scale * torch::matmul(image, text.t());
  return symmetric_cross_entropy(logits, logits.t());
}

ContrastiveLoss hn_contrastive_loss(const at::Tensor& image, const at::Tensor& text,
                                    const at::Tensor& scale, double gamma,
                                    const at::Tensor& text_for_g) {
  if (!std::isfinite(gamma) || gamma < 0) {
    throw std::invalid_argument("gamma must be finite and >= 0, got " + std::to_string(gamma));
  }
  check_pair(image, text);
  const auto sim = torch::matmul(image, text.t());  // S = V Tᵀ, [B, B]
  ContrastiveLoss out;
  if (gamma == 0.0) {
    const auto logits = scale * sim;
    out.loss = symmetric_cross_entropy(logits, logits.t());
    out.loss_standard = out.loss.detach();
    return out;
  }
  if (!text_for_g.defined() || text_for_g.sizes() != text.sizes()) {
    throw std::invalid_argument("HN loss: the features for G must have the text features' shape");
  }
  const auto gbar = caption_margins(text_for_g);  // symmetric, so the same margin serves both
  out.loss = symmetric_cross_entropy(scale * (sim + gamma * gbar), scale * (sim.t() + gamma * gbar));
  {
    torch::NoGradGuard no_grad;
    const auto logits = scale.detach() * sim.detach();
    out.loss_standard = symmetric_cross_entropy(logits, logits.t());
  }
  return out;
}

}  // namespace hnclip
