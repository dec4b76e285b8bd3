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

}  // namespace hnclip
