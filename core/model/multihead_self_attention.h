#pragma once
// MultiheadSelfAttention: self-attention with packed q,k,v projections, parameter-compatible with
// torch.nn.MultiheadAttention as OpenAI CLIP uses it (`in_proj_weight` [3W, W], `in_proj_bias`,
// `out_proj.weight`, `out_proj.bias`). Batch-first [B, N, W] here, so written out around the
// attention itself; that is at::scaled_dot_product_attention on LibTorch >= 2.0 (fused flash /
// memory-efficient kernels on a GPU), an explicit softmax(QK^T / sqrt(Dh)) V on 1.13, which has
// no public fused attention. The explicit path stays callable on 2.x so the two can be compared.
// Single-threaded use per module, like any torch::nn::Module.

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "model/linear_adapter.h"

namespace hnclip {

// Which computation of softmax(QK^T / sqrt(Dh)) V: Auto is Fused where it exists (LibTorch >= 2.0)
// and Explicit elsewhere; Fused on 1.13 throws.
enum class AttentionPath { Auto, Explicit, Fused };

// Whether this build's LibTorch has at::scaled_dot_product_attention (2.0 and later).
bool fused_attention_available();

// q, k, v: [B, H, N, Dh]; causal: position i attends to positions <= i only (the text tower).
// No dropout (CLIP's attention has none). Returns [B, H, N, Dh].
at::Tensor scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k,
                                        const at::Tensor& v, bool causal,
                                        AttentionPath path = AttentionPath::Auto);

class MultiheadSelfAttentionImpl : public torch::nn::Module {
 public:
  MultiheadSelfAttentionImpl(int64_t width, int64_t heads);
  // x: [B, N, W]; causal as in scaled_dot_product_attention above.
  torch::Tensor forward(const torch::Tensor& x, bool causal = false);
  // forward(x, causal)[b, rows[b]] for each b, [B, W], computing queries and the attention for
  // those rows only (keys and values still for all N). rows: [B] int64 positions.
  torch::Tensor forward_rows(const torch::Tensor& x, const torch::Tensor& rows,
                             bool causal = false);

  torch::Tensor in_proj_weight, in_proj_bias;
  torch::nn::Linear out_proj{nullptr};
  // Optional low-rank adapters (core/model/peft.h attaches them as submodules `in_proj_adapter`,
  // `out_proj_adapter`); null, as by default, means the plain projections and no extra work.
  LinearAdapter in_proj_adapter{nullptr}, out_proj_adapter{nullptr};
  // Not a parameter and never saved: tests set Explicit to compare with the fused kernel.
  AttentionPath path = AttentionPath::Auto;

 private:
  int64_t width_, heads_;
};
TORCH_MODULE(MultiheadSelfAttention);

}  // namespace hnclip
