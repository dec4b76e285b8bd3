#include "model/multihead_self_attention.h"

#include <torch/torch.h>

#include <cmath>

namespace hnclip {

MultiheadSelfAttentionImpl::MultiheadSelfAttentionImpl(int64_t width, int64_t heads)
    : width_(width), heads_(heads) {
  in_proj_weight = register_parameter("in_proj_weight", torch::empty({3 * width, width}));
  in_proj_bias = register_parameter("in_proj_bias", torch::zeros({3 * width}));
  out_proj = register_module("out_proj", torch::nn::Linear(width, width));
  torch::nn::init::xavier_uniform_(in_proj_weight);
  torch::nn::init::zeros_(out_proj->bias);
}

torch::Tensor MultiheadSelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& mask) {
  const int64_t b = x.size(0), n = x.size(1), dh = width_ / heads_;
  // [B, N, 3W] -> three [B, H, N, Dh]
  auto qkv = (in_proj_adapter ? in_proj_adapter->forward(x, in_proj_weight, in_proj_bias)
                             : torch::nn::functional::linear(x, in_proj_weight, in_proj_bias))
                 .view({b, n, 3, heads_, dh})
                 .permute({2, 0, 3, 1, 4});
  auto q = qkv[0] * (1.0 / std::sqrt(static_cast<double>(dh)));
  auto scores = torch::matmul(q, qkv[1].transpose(-2, -1));  // [B, H, N, N]
  if (mask.defined()) scores = scores + mask;
  auto attn = torch::softmax(scores, -1);
  auto out = torch::matmul(attn, qkv[2]).transpose(1, 2).reshape({b, n, width_});
  return out_proj_adapter ? out_proj_adapter->forward(out, out_proj->weight, out_proj->bias) : out_proj(out);
}

}  // namespace hnclip
