#pragma once
// FineLIP's fine-grained loss (Asokan et al., "FineLIP: Extending CLIP's Reach via Fine-Grained
// Alignment with Longer Text Inputs", CVPR 2025; its code): an image and a caption are each a
// small set of tokens — K aggregated patch / word tokens (model/token_aggregator.h) plus the image
// CLS / caption EOT feature — and their similarity is a cross-modal late interaction on
// leaky-ReLU(0.1) cosines:
//
//   A = leaky_relu(I Tᵀ, 0.1)  [K_i, K_t]
//   sim(I, T) = mean over text tokens of max over image tokens of A
//             + mean over image tokens of max over text tokens of A
//
// trained with VSE++'s bidirectional triplet hinge (margin 0.2; summed over the batch's
// violations, or its hardest negative per query when asked).

#include <ATen/core/Tensor.h>

namespace hnclip {

struct FinelipOptions {
  double margin = 0.2;
  double negative_slope = 0.1;
  bool hardest_negative = false;  // VSE++'s max_violation
};

// image_tokens [B_i, K_i, d], text_tokens [B_t, K_t, d] (L2-normalised along d): [B_i, B_t].
at::Tensor finelip_similarity(const at::Tensor& image_tokens, const at::Tensor& text_tokens,
                              double negative_slope);

// VSE++'s loss on a square similarity matrix (rows images, columns captions, matches on the
// diagonal): Σ_{i≠j} [m + S_ij − S_ii]₊ + [m + S_ij − S_jj]₊, or with `hardest` only each row's
// and each column's largest violation. Throws std::invalid_argument when S is not square.
at::Tensor triplet_hinge_loss(const at::Tensor& similarity, double margin, bool hardest);

// triplet_hinge_loss(finelip_similarity(...)) with the options' margin, slope and negatives.
at::Tensor finelip_loss(const at::Tensor& image_tokens, const at::Tensor& text_tokens,
                        const FinelipOptions& options = {});

}  // namespace hnclip
