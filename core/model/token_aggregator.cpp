#include "model/token_aggregator.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace hnclip {

int64_t finelip_kept_tokens(int64_t n, double ratio) {
  return std::max<int64_t>(1, std::llround(ratio * static_cast<double>(n)));
}

TokenAggregatorImpl::TokenAggregatorImpl(int64_t dim, int64_t keep, double hidden_ratio)
    : keep_(keep) {
  if (dim < 1 || keep < 1 || !(hidden_ratio > 0)) {
    throw std::invalid_argument("TokenAggregator: dim and keep must be >= 1, hidden_ratio > 0");
  }
  const int64_t hidden = std::max<int64_t>(1, std::llround(hidden_ratio * static_cast<double>(dim)));
  norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
  fc1 = register_module("fc1", torch::nn::Linear(dim, hidden));
  fc2 = register_module("fc2", torch::nn::Linear(hidden, keep));
  scale = register_parameter("scale", torch::ones({1, 1, 1}));
}

torch::Tensor TokenAggregatorImpl::forward(const torch::Tensor& x, const torch::Tensor& mask) {
  namespace F = torch::nn::functional;
  auto w = fc2(F::gelu(fc1(norm(x)))).transpose(1, 2) * scale;  // [B, K, N]
  if (mask.defined()) {
    w = w.masked_fill(mask.logical_not().unsqueeze(1), -std::numeric_limits<float>::infinity());
  }
  return torch::bmm(torch::softmax(w, 2), x);
}

torch::Tensor finelip_token_set(TokenAggregator& aggregator, const torch::Tensor& tokens,
                                const torch::Tensor& mask, const torch::Tensor& global) {
  const auto set = torch::cat({aggregator->forward(tokens, mask), global.unsqueeze(1)}, 1);
  return set / set.norm(2, -1, /*keepdim=*/true).clamp_min(1e-12);
}

}  // namespace hnclip
