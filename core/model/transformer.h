#pragma once
// Transformer: a stack of ResidualAttentionBlocks named resblocks.N, as in OpenAI CLIP.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include "model/residual_attention_block.h"

namespace hnclip {

class TransformerImpl : public torch::nn::Module {
 public:
  TransformerImpl(int64_t width, int64_t layers, int64_t heads, MlpActivation activation);
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& mask = {});
  torch::nn::ModuleList resblocks{nullptr};
  int64_t width, layers;
};
TORCH_MODULE(Transformer);

}  // namespace hnclip
