#include "loss/goal_loss.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "loss/hn_contrastive_loss.h"
#include "loss/tensor_shape_text.h"

namespace hnclip {

namespace {

// GOAL's F.normalize(x + 1e-8): added to every element of the pooled features before
// normalising, kept so that the local terms are its, to the last digit.
constexpr double kGoalNormalizeShift = 1e-8;

// The local terms compare row i with row i only, so a batch or width mismatch would broadcast or
// misalign silently: every feature must have the image's [B, E].
void check_feature(const at::Tensor& image, const at::Tensor& feature, const char* name) {
  if (!feature.defined() || feature.dim() != 2 || feature.sizes() != image.sizes()) {
    throw std::invalid_argument(std::string("goal_loss: ") + name + " is " + tensor_shape_text(feature) +
                                " but image is " + tensor_shape_text(image) +
                                "; every feature must be [B, E] of one B and E");
  }
}

// mean_i (cos(pooled_i, target_i) − 1)² with `target` already unit length (it is the same
// normalised feature the contrastive terms use, as in GOAL), so only `pooled` is normalised.
at::Tensor alignment_term(const at::Tensor& pooled, const at::Tensor& target) {
  namespace F = torch::nn::functional;
  const auto direction =
      F::normalize(pooled + kGoalNormalizeShift, F::NormalizeFuncOptions().p(2).dim(-1));
  const auto cosine = (direction * target).sum(-1);
  return F::mse_loss(cosine, torch::ones_like(cosine));
}

}  // namespace

at::Tensor masked_token_mean(const at::Tensor& tokens, const at::Tensor& mask) {
  if (!tokens.defined() || !mask.defined() || tokens.dim() != 3 || mask.dim() != 2 ||
      mask.size(0) != tokens.size(0) || mask.size(1) != tokens.size(1)) {
    throw std::invalid_argument("masked_token_mean: tokens " + tensor_shape_text(tokens) + " and mask " +
                                tensor_shape_text(mask) + " must be [B, N, W] and [B, N]");
  }
  if (mask.scalar_type() != torch::kBool) {
    throw std::invalid_argument("masked_token_mean: the mask must be bool");
  }
  const auto counts = mask.sum(1);
  // An empty box or span is a caller's bug (a box outside the image, a sentence not found in the
  // caption); dividing by zero would hand NaN to the optimiser instead of saying which sample.
  const auto empty = (counts == 0).nonzero();
  if (empty.size(0) > 0) {
    throw std::invalid_argument("masked_token_mean: row " +
                                std::to_string(empty[0][0].item<int64_t>()) +
                                " of the mask selects no token");
  }
  // masked_fill, not a multiply by the mask, so that padding holding inf or NaN stays out.
  const auto kept = tokens.masked_fill(mask.logical_not().unsqueeze(-1), 0.0);
  return kept.sum(1) / counts.unsqueeze(1).to(tokens.scalar_type());
}

GoalLoss goal_loss(const at::Tensor& image, const at::Tensor& text, const at::Tensor& crop_image,
                   const at::Tensor& sentence, const at::Tensor& patch_region,
                   const at::Tensor& span, const at::Tensor& scale, bool hn, double gamma,
                   const at::Tensor& text_for_g, double crop_weight) {
  if (!image.defined() || image.dim() != 2) {
    throw std::invalid_argument("goal_loss: image is " + tensor_shape_text(image) + ", must be [B, E]");
  }
  check_feature(image, text, "text");
  check_feature(image, crop_image, "crop_image");
  check_feature(image, sentence, "sentence");
  check_feature(image, patch_region, "patch_region");
  check_feature(image, span, "span");
  if (!scale.defined() || scale.numel() != 1) {
    throw std::invalid_argument("goal_loss: scale is " + tensor_shape_text(scale) + ", must be one element");
  }
  if (!std::isfinite(crop_weight) || crop_weight < 0) {
    throw std::invalid_argument("goal_loss: crop_weight must be finite and >= 0, got " +
                                std::to_string(crop_weight));
  }
  GoalLoss out;
  // γ = 0 is plain InfoNCE bit for bit (loss/hn_contrastive_loss.h), Ḡ never formed.
  out.global_term = hn ? hn_contrastive_loss(image, text, scale, gamma, text_for_g).loss
                       : hn_contrastive_loss(image, text, scale, 0.0, at::Tensor()).loss;
  out.crop_term = info_nce_loss(crop_image, sentence, scale);
  out.patch_term = alignment_term(patch_region, crop_image);
  out.text_term = alignment_term(span, sentence);
  out.loss = out.global_term + crop_weight * out.crop_term + out.patch_term + out.text_term;
  return out;
}

}  // namespace hnclip
