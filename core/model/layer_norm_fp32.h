#pragma once
// layer_norm_fp32: a LayerNorm that always normalises in fp32 and returns fp32, whatever dtype
// comes in — the behaviour LibTorch's CUDA autocast gives layer_norm (it is on CUDA's fp32 list).
// LibTorch 1.13's CPU autocast leaves layer_norm off its list, and its CPU kernel refuses a bf16
// input with fp32 weights, so without this the encoders cannot run under CPU bf16 autocast at all.
// Returning fp32 (rather than casting back) also keeps the text tower's residual stream in fp32,
// as it is under CUDA autocast. In fp32 training the cast is a no-op (`to` returns the tensor).

#include <torch/torch.h>

namespace hnclip {

inline torch::Tensor layer_norm_fp32(torch::nn::LayerNorm& norm, const torch::Tensor& x) {
  return norm(x.to(torch::kFloat));
}

}  // namespace hnclip
