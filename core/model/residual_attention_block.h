#pragma once
// ResidualAttentionBlock: OpenAI CLIP's pre-LayerNorm transformer block
// (x + attn(ln_1(x)), then x + mlp(ln_2(x)) with a 4x MLP), same parameter names. The MLP's
// non-linearity is the model's (QuickGELU for OpenAI's weights, exact GELU for LAION's).

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "model/clip_config.h"
#include "model/linear_adapter.h"
#include "model/multihead_self_attention.h"

namespace hnclip {

// The MLP as a module of its own so its parameters are named mlp.c_fc.* and mlp.c_proj.*.
class ClipMlpImpl : public torch::nn::Module {
 public:
  ClipMlpImpl(int64_t width, MlpActivation activation);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear c_fc{nullptr}, c_proj{nullptr};
  // Optional low-rank adapters (`c_fc_adapter`, `c_proj_adapter`), attached by core/model/peft.h.
  LinearAdapter c_fc_adapter{nullptr}, c_proj_adapter{nullptr};

 private:
  torch::Tensor activate(const torch::Tensor& x) const;
  MlpActivation activation_;
};
TORCH_MODULE(ClipMlp);

class ResidualAttentionBlockImpl : public torch::nn::Module {
 public:
  ResidualAttentionBlockImpl(int64_t width, int64_t heads, MlpActivation activation);
  // causal: the text tower's mask (MultiheadSelfAttention::forward).
  torch::Tensor forward(const torch::Tensor& x, bool causal = false);
  // forward(x, causal)[b, rows[b]] for each b, [B, W]: only those rows through the attention's
  // queries, the out-projection and the MLP (MultiheadSelfAttention::forward_rows).
  torch::Tensor forward_rows(const torch::Tensor& x, const torch::Tensor& rows,
                             bool causal = false);

  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  MultiheadSelfAttention attn{nullptr};
  ClipMlp mlp{nullptr};
};
TORCH_MODULE(ResidualAttentionBlock);

}  // namespace hnclip
