#include "loss/token_similarity.h"

#include <torch/torch.h>

#include <algorithm>

namespace hnclip {

namespace {
constexpr int64_t kMaxChunkElements = int64_t{1} << 24;  // ~64 MB of fp32 per image chunk
}

at::Tensor token_similarity(const at::Tensor& patches, const at::Tensor& tokens,
                            const at::Tensor& token_mask) {
  const int64_t bi = patches.size(0), p = patches.size(1);
  const int64_t bt = tokens.size(0), l = tokens.size(1);
  const auto mask = token_mask.to(tokens.dtype());                   // [Bt, L]
  const auto count = mask.sum(1).clamp_min(1.0);                      // [Bt]
  const int64_t chunk = std::max<int64_t>(1, kMaxChunkElements / std::max<int64_t>(1, bt * l * p));
  std::vector<at::Tensor> rows;
  for (int64_t start = 0; start < bi; start += chunk) {
    const auto pc = patches.slice(0, start, std::min(bi, start + chunk));  // [c, P, d]
    // [c, Bt, L, P]: every caption token against every patch of each image in the chunk.
    const auto sims = torch::einsum("ipd,jld->ijlp", {pc, tokens});
    const auto best = std::get<0>(sims.max(-1));                     // [c, Bt, L]
    rows.push_back((best * mask.unsqueeze(0)).sum(-1) / count.unsqueeze(0));
  }
  return torch::cat(rows, 0);
}

at::Tensor token_level_loss(const at::Tensor& patches, const at::Tensor& tokens,
                            const at::Tensor& token_mask, const at::Tensor& scale) {
  const auto logits = scale * token_similarity(patches, tokens, token_mask);
  const auto targets = torch::arange(logits.size(0), logits.options().dtype(torch::kLong));
  return 0.5 * (torch::nn::functional::cross_entropy(logits, targets) +
                torch::nn::functional::cross_entropy(logits.t(), targets));
}

}  // namespace hnclip
