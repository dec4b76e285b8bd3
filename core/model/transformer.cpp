#include "model/transformer.h"

#include <torch/torch.h>

namespace hnclip {

TransformerImpl::TransformerImpl(int64_t width_, int64_t layers_, int64_t heads,
                                 MlpActivation activation)
    : width(width_), layers(layers_) {
  resblocks = register_module("resblocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < layers; ++i) {
    resblocks->push_back(ResidualAttentionBlock(width, heads, activation));
  }
}

torch::Tensor TransformerImpl::forward(torch::Tensor x, bool causal) {
  for (const auto& block : *resblocks) x = block->as<ResidualAttentionBlock>()->forward(x, causal);
  return x;
}

torch::Tensor TransformerImpl::forward_rows(torch::Tensor x, const torch::Tensor& rows,
                                            bool causal) {
  const auto n = static_cast<int64_t>(resblocks->size());
  if (n == 0) return x.index({torch::arange(x.size(0), rows.options()), rows});
  for (int64_t i = 0; i + 1 < n; ++i) {
    x = resblocks[i]->as<ResidualAttentionBlock>()->forward(x, causal);
  }
  return resblocks[n - 1]->as<ResidualAttentionBlock>()->forward_rows(x, rows, causal);
}

}  // namespace hnclip
