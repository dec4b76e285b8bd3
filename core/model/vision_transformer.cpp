#include "model/vision_transformer.h"
#include "model/layer_norm_fp32.h"

#include <torch/torch.h>

#include <cmath>

namespace hnclip {

VisionTransformerImpl::VisionTransformerImpl(int64_t image_size, int64_t patch_size, int64_t width,
                                             int64_t layers, int64_t heads, int64_t embed_dim,
                                             MlpActivation activation) {
  const int64_t grid = image_size / patch_size;
  // CLIP's initialisation: class/positional embeddings and projection scaled by width^-0.5.
  const double scale = 1.0 / std::sqrt(static_cast<double>(width));
  conv1 = register_module(
      "conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, width, patch_size).stride(patch_size).bias(false)));
  class_embedding = register_parameter("class_embedding", scale * torch::randn({width}));
  positional_embedding =
      register_parameter("positional_embedding", scale * torch::randn({grid * grid + 1, width}));
  ln_pre = register_module("ln_pre", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  transformer = register_module("transformer", Transformer(width, layers, heads, activation));
  ln_post = register_module("ln_post", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  proj = register_parameter("proj", scale * torch::randn({width, embed_dim}));
}

ImageFeatures VisionTransformerImpl::forward(const torch::Tensor& images, TowerOutputs outputs) {
  auto x = conv1(images);                          // [B, W, g, g]
  x = x.flatten(2).transpose(1, 2);                // [B, g*g, W]
  auto cls = class_embedding.to(x.dtype()).expand({x.size(0), 1, x.size(2)});
  x = layer_norm_fp32(ln_pre, torch::cat({cls, x}, 1) + positional_embedding.to(x.dtype()));
  ImageFeatures out;
  if (outputs == TowerOutputs::Pooled) {
    const auto class_rows =
        torch::zeros({x.size(0)}, torch::dtype(torch::kLong).device(x.device()));
    out.pooled =
        torch::matmul(layer_norm_fp32(ln_post, transformer->forward_rows(x, class_rows)), proj);
    return out;
  }
  x = transformer(x);
  out.hidden = x;
  if (outputs == TowerOutputs::Tokens) {
    auto all = torch::matmul(layer_norm_fp32(ln_post, x), proj);    // [B, 1+P, E]
    out.pooled = all.select(1, 0);
    out.patches = all.slice(1, 1);
  } else {
    out.pooled = torch::matmul(layer_norm_fp32(ln_post, x.select(1, 0)), proj);
  }
  return out;
}

}  // namespace hnclip
