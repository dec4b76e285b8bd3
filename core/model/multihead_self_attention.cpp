#include "model/multihead_self_attention.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <cmath>
#include <limits>
#include <stdexcept>

// at::scaled_dot_product_attention arrived in LibTorch 2.0; its default scale is 1/sqrt(Dh).
#if TORCH_VERSION_MAJOR >= 2
#define HNCLIP_HAS_SDPA 1
#else
#define HNCLIP_HAS_SDPA 0
#endif

namespace hnclip {
namespace {

at::Tensor explicit_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                              bool causal) {
  const int64_t n = q.size(-2), dh = q.size(-1);
  auto scores = torch::matmul(q * (1.0 / std::sqrt(static_cast<double>(dh))), k.transpose(-2, -1));
  if (causal) {
    // Built per call (96x96 for the tiny model: negligible) so it follows the device and dtype
    // and never enters a state dict, as in OpenAI's checkpoints.
    scores = scores + torch::full({n, n}, -std::numeric_limits<float>::infinity(), scores.options())
                          .triu(1);
  }
  return torch::matmul(torch::softmax(scores, -1), v);
}

}  // namespace

bool fused_attention_available() { return HNCLIP_HAS_SDPA != 0; }

at::Tensor scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k,
                                        const at::Tensor& v, bool causal, AttentionPath path) {
  if (path == AttentionPath::Auto) {
    path = fused_attention_available() ? AttentionPath::Fused : AttentionPath::Explicit;
  }
  if (path == AttentionPath::Explicit) return explicit_attention(q, k, v, causal);
#if HNCLIP_HAS_SDPA
  // is_causal rather than an additive mask: with a mask the flash kernel is never chosen.
  return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0, causal);
#else
  throw std::invalid_argument(
      "scaled_dot_product_attention: the fused path needs LibTorch >= 2.0 (this build has " +
      std::string(TORCH_VERSION) + ")");
#endif
}

MultiheadSelfAttentionImpl::MultiheadSelfAttentionImpl(int64_t width, int64_t heads)
    : width_(width), heads_(heads) {
  in_proj_weight = register_parameter("in_proj_weight", torch::empty({3 * width, width}));
  in_proj_bias = register_parameter("in_proj_bias", torch::zeros({3 * width}));
  out_proj = register_module("out_proj", torch::nn::Linear(width, width));
  torch::nn::init::xavier_uniform_(in_proj_weight);
  torch::nn::init::zeros_(out_proj->bias);
}

torch::Tensor MultiheadSelfAttentionImpl::forward(const torch::Tensor& x, bool causal) {
  const int64_t b = x.size(0), n = x.size(1), dh = width_ / heads_;
  // [B, N, 3W] -> three [B, H, N, Dh]
  auto qkv = (in_proj_adapter ? in_proj_adapter->forward(x, in_proj_weight, in_proj_bias)
                             : torch::nn::functional::linear(x, in_proj_weight, in_proj_bias))
                 .view({b, n, 3, heads_, dh})
                 .permute({2, 0, 3, 1, 4});
  auto out = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], causal, path)
                 .transpose(1, 2)
                 .reshape({b, n, width_});
  return out_proj_adapter ? out_proj_adapter->forward(out, out_proj->weight, out_proj->bias) : out_proj(out);
}

torch::Tensor MultiheadSelfAttentionImpl::forward_rows(const torch::Tensor& x,
                                                       const torch::Tensor& rows, bool causal) {
  const int64_t b = x.size(0), n = x.size(1), dh = width_ / heads_;
  const auto batch = torch::arange(b, rows.options());
  torch::Tensor q, kv;  // [B, W] and [B, N, 2W]
  if (in_proj_adapter) {
    // The adapter's update spans all 3W output rows of the packed weight: project, then select.
    const auto qkv = in_proj_adapter->forward(x, in_proj_weight, in_proj_bias);
    q = qkv.index({batch, rows}).slice(-1, 0, width_);
    kv = qkv.slice(-1, width_);
  } else {
    q = torch::nn::functional::linear(x.index({batch, rows}), in_proj_weight.slice(0, 0, width_),
                                      in_proj_bias.slice(0, 0, width_));
    kv = torch::nn::functional::linear(x, in_proj_weight.slice(0, width_),
                                       in_proj_bias.slice(0, width_));
  }
  kv = kv.view({b, n, 2, heads_, dh}).permute({2, 0, 3, 1, 4});  // two [B, H, N, Dh]
  // One query per sequence: the written-out softmax(qK^T / sqrt(Dh)) V is a [B, H, 1, N] product,
  // too small for a fused kernel to matter. Causal: row r sees positions <= r, its own r.
  auto scores =
      torch::matmul(q.view({b, heads_, 1, dh}) * (1.0 / std::sqrt(static_cast<double>(dh))),
                    kv[0].transpose(-2, -1));
  if (causal) {
    const auto later = torch::arange(n, rows.options()).unsqueeze(0) > rows.unsqueeze(1);
    scores = scores.masked_fill(later.view({b, 1, 1, n}), -std::numeric_limits<double>::infinity());
  }
  const auto out = torch::matmul(torch::softmax(scores, -1), kv[1]).reshape({b, width_});
  return out_proj_adapter ? out_proj_adapter->forward(out, out_proj->weight, out_proj->bias)
                          : out_proj(out);
}

}  // namespace hnclip
