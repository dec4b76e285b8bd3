#pragma once
// FineLIP's token aggregation (after LAPS's TokenAggregation, which FineLIP's code uses): K
// learned queries pool a sequence of N tokens into K tokens. An MLP scores every token for every
// output slot — LayerNorm(d) → Linear(d, d·0.2) → GELU → Linear(·, K) — the scores are scaled by
// a learned scalar (starting at 1) and soft-maxed over the N tokens (padding masked out), and each
// output token is the weighted sum of the input tokens:
//
//   W = softmax_N(scale · MLP(X)ᵀ)  [B, K, N],   out = W X  [B, K, d]
//
// FineLIP keeps K = 40% × 50% of the image's patch count (LAPS's sparse 0.5 × aggregation 0.4
// ratios), and the same ratio of the text context for captions.
// Not thread-safe; owned by the trainer of a FineLIP run.

#include <cstdint>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

namespace hnclip {

// FineLIP's kept-token ratio: 0.5 (LAPS's sparse ratio) × 0.4 (its aggregation ratio).
constexpr double kFinelipKeptTokenRatio = 0.5 * 0.4;

// max(1, round(ratio · n)): the tokens kept of n.
int64_t finelip_kept_tokens(int64_t n, double ratio = kFinelipKeptTokenRatio);

class TokenAggregatorImpl : public torch::nn::Module {
 public:
  // dim: the tokens' width d; keep: K; hidden_ratio: the MLP's hidden width over d (LAPS: 0.2).
  TokenAggregatorImpl(int64_t dim, int64_t keep, double hidden_ratio = 0.2);

  // x: [B, N, d]; mask: [B, N] bool (true = a real token) or undefined (all real). A row must
  // have at least one real token. Returns [B, K, d].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask = {});

  int64_t keep() const { return keep_; }

  torch::nn::LayerNorm norm{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor scale;

 private:
  int64_t keep_;
};
TORCH_MODULE(TokenAggregator);

// One side of FineLIP's similarity: the K aggregated tokens of `tokens` [B, N, d] (mask as
// forward) followed by the global feature [B, d] (image CLS / caption EOT), each L2-normalised:
// [B, K + 1, d].
torch::Tensor finelip_token_set(TokenAggregator& aggregator, const torch::Tensor& tokens,
                                const torch::Tensor& mask, const torch::Tensor& global);

}  // namespace hnclip
