#pragma once
// GOAL's fine-tuning loss (Choi, Jang, Eom, "GOAL: Global-local Object Alignment Learning",
// CVPR 2025; its training code): besides matching each image to its long caption, every image
// carries one segment — a crop box of the image matched to one sentence of the caption — and
// the loss also aligns the parts:
//
//   L = global + w_crop·crop + patch + text
//   global = CE(s·V Tᵀ) ⊕ CE(s·T Vᵀ)           (the HN-CLIP loss when the margins are on)
//   crop   = CE(s·C Pᵀ) ⊕ CE(s·P Cᵀ)           C the crop images', P the sentences' features
//   patch  = mean_i (cos(R_i, C_i) − 1)²         R_i the image's tokens under the box, pooled
//   text   = mean_i (cos(Q_i, P_i) − 1)²         Q_i the caption's tokens of the sentence, pooled
//
// with CE the cross-entropy to the diagonal, ⊕ the mean of the two directions, w_crop = 0.5. The
// pooled features R and Q are what the towers' own heads make of a token mean (ln_post + proj,
// ln_final + text projection), so the local terms pull the full image's / caption's tokens of a
// part towards what the encoders say about that part alone. As in GOAL's code, R and Q are
// normalised as F.normalize(x + 1e-8).

#include <ATen/core/Tensor.h>

namespace hnclip {

struct GoalLoss {
  at::Tensor loss;         // global + crop_weight·crop + patch + text, the optimised loss
  at::Tensor global_term;  // image ↔ long caption (the HN loss when the margins are on)
  at::Tensor crop_term;    // crop image ↔ sentence (GOAL's loss_seg), unweighted
  at::Tensor patch_term;   // pooled box tokens ↔ crop image
  at::Tensor text_term;    // pooled sentence-span tokens ↔ sentence
};

// tokens [B, N, W], mask [B, N] bool: [B, W], each row's mean over its masked positions (what
// the masked-out positions hold never matters, NaN included). Pools both the patches a box
// touches and a sentence's token span. Throws std::invalid_argument for mismatched shapes, a
// mask that is not bool, or a row whose mask selects nothing (naming the row).
at::Tensor masked_token_mean(const at::Tensor& tokens, const at::Tensor& mask);

// image, text, crop_image, sentence: [B, E] L2-normalised global features (image ↔ long caption,
// crop ↔ sentence encoded alone); patch_region, span: [B, E] pooled and projected, not
// normalised; scale: s (the exponentiated logit scale, one element). With hn the global term is
// hn_contrastive_loss(image, text, scale, gamma, text_for_g), else plain InfoNCE (gamma and
// text_for_g unused). Throws std::invalid_argument when the features differ in shape, scale is
// not one element, crop_weight is negative or not finite, or (from the HN loss) for a bad γ.
GoalLoss goal_loss(const at::Tensor& image, const at::Tensor& text, const at::Tensor& crop_image,
                   const at::Tensor& sentence, const at::Tensor& patch_region,
                   const at::Tensor& span, const at::Tensor& scale, bool hn, double gamma,
                   const at::Tensor& text_for_g, double crop_weight = 0.5);

}  // namespace hnclip
