#pragma once
// MultiheadSelfAttention: self-attention with packed q,k,v projections, parameter-compatible with
// torch.nn.MultiheadAttention as OpenAI CLIP uses it (`in_proj_weight` [3W, W], `in_proj_bias`,
// `out_proj.weight`, `out_proj.bias`). Batch-first [B, N, W] here; written out by hand because
// LibTorch 1.13 has no public fused attention and its MultiheadAttention is sequence-first.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "model/linear_adapter.h"

namespace hnclip {

class MultiheadSelfAttentionImpl : public torch::nn::Module {
 public:
  MultiheadSelfAttentionImpl(int64_t width, int64_t heads);
  // x: [B, N, W]; mask: additive [N, N] (e.g. causal -inf above the diagonal) or undefined.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask = {});

  torch::Tensor in_proj_weight, in_proj_bias;
  torch::nn::Linear out_proj{nullptr};
  // Optional low-rank adapters (core/model/peft.h attaches them as submodules `in_proj_adapter`,
  // `out_proj_adapter`); null, as by default, means the plain projections and no extra work.
  LinearAdapter in_proj_adapter{nullptr}, out_proj_adapter{nullptr};

 private:
  int64_t width_, heads_;
};
TORCH_MODULE(MultiheadSelfAttention);

}  // namespace hnclip
