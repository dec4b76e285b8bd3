#pragma once
// Late-interaction (token-level) similarity between captions and images, the workbench's
// documented stand-in for the paper's unpublished token term (in the spirit of FILIP/FineLIP):
// sim(image i, caption j) = mean over caption j's word tokens of the max cosine over image i's
// patch tokens. Used as logits of a symmetric InfoNCE with weight λtok.

#include <ATen/core/Tensor.h>

namespace hnclip {

// patches: [B, P, d], tokens: [B, L, d] (both L2-normalised along d), token_mask: [B, L] bool.
// Returns [B_images, B_captions]. Computed in image chunks to bound the B·B·L·P intermediate.
at::Tensor token_similarity(const at::Tensor& patches, const at::Tensor& tokens,
                            const at::Tensor& token_mask);

// Symmetric InfoNCE over s · token_similarity.
at::Tensor token_level_loss(const at::Tensor& patches, const at::Tensor& tokens,
                            const at::Tensor& token_mask, const at::Tensor& scale);

}  // namespace hnclip
