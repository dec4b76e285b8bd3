#pragma once
// DeBias-CLIP's fine-tuning loss, as built here on Long-CLIP's (loss/long_clip_loss.h): the image
// is matched to its full caption (the global term) and, in place of Long-CLIP's short branch, to
// its augmented caption (train/debias_caption.h: summary dropped, detail sub-sampled, padded to
// late positions):
//
//   L = CE_ls(s·V Tᵀ) ⊕ CE_ls(s·T Vᵀ)  +  CE_ls(s·V T_augᵀ) ⊕ CE_ls(s·T_aug Vᵀ)
//
// with ⊕ the mean of the two directions, CE_ls label-smoothed, the branches summed 1 : 1. The
// augmented branch uses the image's own features, not Long-CLIP's batch PCA: the PCA keeps the
// coarse content a *summary* describes, and the augmented caption is the detail without it. With
// the HN margins on, the global term is the HN-CLIP loss (the run's γ and Ḡ) instead.

#include <ATen/core/Tensor.h>

namespace hnclip {

struct DebiasClipLoss {
  at::Tensor loss;            // global + augmented, the optimised loss
  at::Tensor global_term;     // image ↔ full caption (the HN loss when the margins are on)
  at::Tensor augmented_term;  // image ↔ augmented caption
};

// image, text, text_augmented: [B, d] L2-normalised; scale: s; Ḡ from `text_for_g` when hn.
// Throws std::invalid_argument for mismatched shapes, smoothing outside [0, 1) or a bad γ.
DebiasClipLoss debias_clip_loss(const at::Tensor& image, const at::Tensor& text,
                                const at::Tensor& text_augmented, const at::Tensor& scale, bool hn,
                                double gamma, const at::Tensor& text_for_g,
                                double label_smoothing);

}  // namespace hnclip
