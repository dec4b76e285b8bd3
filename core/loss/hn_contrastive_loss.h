#pragma once
// The HN-CLIP loss (docs/DESIGN.md §3): symmetric InfoNCE whose negatives get an additive,
// caption-similarity margin γ·Ḡ. Ḡ = stopgrad(T_g T_gᵀ) with its diagonal set to 0, where T_g is
// the live text features (recomputed Ḡ) or a frozen copy's (frozen Ḡ). γ = 0 is plain InfoNCE,
// bit for bit (Ḡ is then never formed).

#include <ATen/core/Tensor.h>

namespace hnclip {

struct ContrastiveLoss {
  at::Tensor loss;           // scalar, the optimised loss (with margins when γ > 0)
  at::Tensor loss_standard;  // scalar, detached: plain InfoNCE on the same S (for diagnostics)
};

// Ḡ from L2-normalised text features [B, d]: T Tᵀ, detached, diagonal zeroed.
at::Tensor caption_margins(const at::Tensor& text_for_g);

// Plain symmetric InfoNCE: ½[CE(s·S, I) + CE(s·Sᵀ, I)], S = V Tᵀ.
at::Tensor info_nce_loss(const at::Tensor& image, const at::Tensor& text, const at::Tensor& scale);

// image, text: [B, d] L2-normalised; scale: scalar s; gamma ≥ 0; text_for_g: the features Ḡ is
// built from (pass `text` itself for recomputed Ḡ, frozen-encoder features for frozen Ḡ; ignored
// when gamma == 0). Throws std::invalid_argument for gamma < 0 or not finite, or mismatched shapes.
ContrastiveLoss hn_contrastive_loss(const at::Tensor& image, const at::Tensor& text,
                                    const at::Tensor& scale, double gamma,
                                    const at::Tensor& text_for_g);

}  // namespace hnclip
