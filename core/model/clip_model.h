#pragma once
// ClipModel: OpenAI CLIP's dual encoder with OpenAI's parameter names (`visual.*`,
// `token_embedding.weight`, `positional_embedding`, `transformer.resblocks.N.*`, `ln_final.*`,
// `text_projection`, `logit_scale`), so real checkpoints map onto it name for name.
// Ownership: a TORCH_MODULE holder (shared_ptr semantics). Not thread-safe; one training thread.

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "model/clip_config.h"
#include "model/transformer.h"
#include "model/vision_transformer.h"

namespace hnclip {

struct TextFeatures {
  torch::Tensor pooled;  // [B, E] at the end token, after ln_final and text_projection
  // For TowerOutputs::Tokens: [B, L', E] every position up to the batch's last end token
  // (L' <= L), after ln_final and projection, and the [B, L'] bool mask of caption words (after
  // start, before end).
  torch::Tensor tokens;
  torch::Tensor mask;
  // [B, L', W] the transformer's output before ln_final, for Hidden and Tokens: GOAL pools a
  // sentence's span here and sends the mean through ln_final and text_projection itself.
  torch::Tensor hidden;
};

class ClipModelImpl : public torch::nn::Module {
 public:
  explicit ClipModelImpl(const ClipConfig& config);

  ImageFeatures encode_image(const torch::Tensor& images,
                             TowerOutputs outputs = TowerOutputs::Pooled);
  TextFeatures encode_text(const torch::Tensor& tokens,
                           TowerOutputs outputs = TowerOutputs::Pooled);
  // s = exp(logit_scale), clamped to at most kMaxLogitScale.
  torch::Tensor scale();

  const ClipConfig& config() const { return config_; }

  VisionTransformer visual{nullptr};
  torch::nn::Embedding token_embedding{nullptr};
  torch::Tensor positional_embedding, text_projection, logit_scale;
  // Long-CLIP only (config.frozen_positions > 0), undefined otherwise: the trainable table for
  // positions frozen_positions.. ; positional_embedding then has requires_grad false.
  torch::Tensor positional_embedding_res;
  // [L, W]: the text position table as encode_text adds it (Long-CLIP: the frozen rows of
  // positional_embedding, then positional_embedding_res), first `length` rows.
  torch::Tensor text_positions(int64_t length) const;
  Transformer transformer{nullptr};
  torch::nn::LayerNorm ln_final{nullptr};

  static constexpr double kMaxLogitScale = 100.0;  // CLIP's clamp on s

 private:
  ClipConfig config_;
};
TORCH_MODULE(ClipModel);

}  // namespace hnclip
