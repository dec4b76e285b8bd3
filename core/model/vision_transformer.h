#pragma once
// VisionTransformer: CLIP's image tower (conv1 patchify, class token, ln_pre, transformer,
// ln_post, proj), parameter names as OpenAI's `visual.*`.

#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "model/tower_outputs.h"
#include "model/transformer.h"

namespace hnclip {

struct ImageFeatures {
  torch::Tensor pooled;   // [B, E] class token after ln_post and proj (not normalised)
  torch::Tensor patches;  // [B, P, E] patch tokens after ln_post and proj (TowerOutputs::Tokens)
  // [B, 1+P, W] the transformer's output before ln_post (class token first), for Hidden and
  // Tokens: GOAL pools patch tokens here and sends the mean through ln_post and proj itself.
  torch::Tensor hidden;
};

class VisionTransformerImpl : public torch::nn::Module {
 public:
  VisionTransformerImpl(int64_t image_size, int64_t patch_size, int64_t width, int64_t layers,
                        int64_t heads, int64_t embed_dim, MlpActivation activation);
  ImageFeatures forward(const torch::Tensor& images, TowerOutputs outputs = TowerOutputs::Pooled);

  torch::nn::Conv2d conv1{nullptr};
  torch::Tensor class_embedding, positional_embedding, proj;
  torch::nn::LayerNorm ln_pre{nullptr}, ln_post{nullptr};
  Transformer transformer{nullptr};
};
TORCH_MODULE(VisionTransformer);

}  // namespace hnclip
