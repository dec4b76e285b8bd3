#pragma once
// Long-CLIP's fine-tuning loss (Zhang et al., "Long-CLIP: Unlocking the Long-Text Capability of
// CLIP", ECCV 2024; its train code): the image is matched to its long caption as a whole, and a
// coarse version of the image — its features reconstructed from the batch's top principal
// components — to the short caption (the long one up to its first ". "):
//
//   L = CE_ls(s·V T_longᵀ) ⊕ CE_ls(s·T_long Vᵀ)  +  CE_ls(s·PCA(V) T_shortᵀ) ⊕ CE_ls(s·T_short PCA(V)ᵀ)
//
// where ⊕ is the mean of the two directions and CE_ls the cross-entropy with label smoothing 0.1,
// the two branches summed 1 : 1. With the HN margins on, the long branch (Long-CLIP's global
// term) is the HN-CLIP loss with the run's γ and Ḡ instead — as the paper drops it in — and the
// short branch stays Long-CLIP's own.

#include <ATen/core/Tensor.h>

namespace hnclip {

// Long-CLIP's published settings.
struct LongClipOptions {
  int64_t pca_components = 32;  // principal components kept of the image features
  double label_smoothing = 0.1;
};

struct LongClipLoss {
  at::Tensor loss;        // long + short, the optimised loss
  at::Tensor long_term;   // image ↔ long caption (the HN loss when the margins are on)
  at::Tensor short_term;  // PCA(image) ↔ short caption
};

// Long-CLIP's batch PCA of features [B, d]: subtract the batch mean, SVD (in fp32, or the input's
// precision when higher), project on the top `components` right singular vectors, reconstruct and
// add the mean back; no re-normalisation. Differentiable. When `components` reaches the centred
// batch's rank bound (min(B − 1, d)) the reconstruction is exact and `features` is returned as is
// (skipping an SVD whose smallest singular values are all zero, and so its unstable backward).
at::Tensor batch_pca(const at::Tensor& features, int64_t components);

// Symmetric cross-entropy with label smoothing: ½[CE_ls(s·V Tᵀ, I) + CE_ls(s·T Vᵀ, I)].
at::Tensor smoothed_clip_loss(const at::Tensor& image, const at::Tensor& text,
                              const at::Tensor& scale, double label_smoothing);

// image, text_long, text_short: [B, d] L2-normalised; scale: s. hn: replace the long branch by
// the HN loss with `gamma` and Ḡ from `text_for_g` (as hn_contrastive_loss). Throws
// std::invalid_argument for mismatched shapes, components < 1, smoothing outside [0, 1) or a bad γ.
LongClipLoss long_clip_loss(const at::Tensor& image, const at::Tensor& text_long,
                            const at::Tensor& text_short, const at::Tensor& scale, bool hn,
                            double gamma, const at::Tensor& text_for_g,
                            const LongClipOptions& options = {});

}  // namespace hnclip
