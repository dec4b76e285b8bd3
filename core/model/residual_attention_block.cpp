#include "model/residual_attention_block.h"
#include "model/layer_norm_fp32.h"
#include "model/quick_gelu.h"

#include <torch/torch.h>

namespace hnclip {

ClipMlpImpl::ClipMlpImpl(int64_t width, MlpActivation activation) : activation_(activation) {
  c_fc = register_module("c_fc", torch::nn::Linear(width, 4 * width));
  c_proj = register_module("c_proj", torch::nn::Linear(4 * width, width));
}

torch::Tensor ClipMlpImpl::activate(const torch::Tensor& x) const {
  // torch::gelu's default is the exact (erf) form, as open_clip's nn.GELU and HF's "gelu".
  return activation_ == MlpActivation::Gelu ? torch::gelu(x) : quick_gelu(x);
}

torch::Tensor ClipMlpImpl::forward(const torch::Tensor& x) {
  if (!c_fc_adapter && !c_proj_adapter) return c_proj(activate(c_fc(x)));
  auto h = c_fc_adapter ? c_fc_adapter->forward(x, c_fc->weight, c_fc->bias) : c_fc(x);
  h = activate(h);
  return c_proj_adapter ? c_proj_adapter->forward(h, c_proj->weight, c_proj->bias) : c_proj(h);
}

ResidualAttentionBlockImpl::ResidualAttentionBlockImpl(int64_t width, int64_t heads,
                                                       MlpActivation activation) {
  ln_1 = register_module("ln_1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  attn = register_module("attn", MultiheadSelfAttention(width, heads));
  ln_2 = register_module("ln_2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  mlp = register_module("mlp", ClipMlp(width, activation));
}

torch::Tensor ResidualAttentionBlockImpl::forward(const torch::Tensor& x, bool causal) {
  auto h = x + attn(layer_norm_fp32(ln_1, x), causal);
  return h + mlp(layer_norm_fp32(ln_2, h));
}

torch::Tensor ResidualAttentionBlockImpl::forward_rows(const torch::Tensor& x,
                                                       const torch::Tensor& rows, bool causal) {
  const auto batch = torch::arange(x.size(0), rows.options());
  auto h = x.index({batch, rows}) + attn->forward_rows(layer_norm_fp32(ln_1, x), rows, causal);
  return h + mlp(layer_norm_fp32(ln_2, h));
}

}  // namespace hnclip
