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
  // causal: the text tower's mask (MultiheadSelfAttention::forward).
  torch::Tensor forward(torch::Tensor x, bool causal = false);
  // forward(x, causal)[b, rows[b]] for each b, [B, W], the last block computing those rows only
  // (model/tower_outputs.h says why). rows: [B] int64 positions.
  torch::Tensor forward_rows(torch::Tensor x, const torch::Tensor& rows, bool causal = false);
  torch::nn::ModuleList resblocks{nullptr};
  int64_t width, layers;
};
TORCH_MODULE(Transformer);

}  // namespace hnclip
