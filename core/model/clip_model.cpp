#include "model/clip_model.h"
#include "model/layer_norm_fp32.h"

#include <torch/torch.h>

#include <cmath>

namespace hnclip {

namespace {
constexpr double kInitialLogitScale = 1.0 / 0.07;  // CLIP's starting temperature
constexpr double kTokenEmbeddingStd = 0.02;       // CLIP's initialize_parameters
constexpr double kPositionalStd = 0.01;
}  // namespace

ClipModelImpl::ClipModelImpl(const ClipConfig& config) : config_(config) {
  config_.validate();
  const auto& c = config_;
  visual = register_module("visual", VisionTransformer(c.image_size, c.patch_size, c.vision_width,
                                                       c.vision_layers, c.vision_heads, c.embed_dim,
                                                       c.activation));
  token_embedding =
      register_module("token_embedding", torch::nn::Embedding(c.vocab_size, c.text_width));
  positional_embedding =
      register_parameter("positional_embedding", torch::empty({c.context_length, c.text_width}));
  transformer = register_module("transformer", Transformer(c.text_width, c.text_layers, c.text_heads,
                                                           c.activation));
  ln_final = register_module("ln_final", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.text_width})));
  text_projection = register_parameter("text_projection", torch::empty({c.text_width, c.embed_dim}));
  logit_scale = register_parameter("logit_scale", torch::full({}, std::log(kInitialLogitScale)));

  if (c.frozen_positions > 0) {
    positional_embedding_res = register_parameter("positional_embedding_res",
                                                  torch::empty({c.context_length, c.text_width}));
  }

  // Initialisation as OpenAI CLIP's initialize_parameters (text tower and attention/MLP blocks).
  torch::NoGradGuard no_grad;
  torch::nn::init::normal_(token_embedding->weight, 0.0, kTokenEmbeddingStd);
  torch::nn::init::normal_(positional_embedding, 0.0, kPositionalStd);
  if (positional_embedding_res.defined()) {
    // Same start in both tables, as Long-CLIP's load_from_clip leaves them; only the rows past
    // frozen_positions of the second one are ever used and trained.
    positional_embedding_res.copy_(positional_embedding);
    positional_embedding.set_requires_grad(false);
  }
  auto init_blocks = [](Transformer& t) {
    const double w = static_cast<double>(t->width);
    const double proj_std = std::pow(w, -0.5) * std::pow(2.0 * t->layers, -0.5);
    const double attn_std = std::pow(w, -0.5);
    const double fc_std = std::pow(2.0 * w, -0.5);
    for (const auto& m : *t->resblocks) {
      auto* block = m->as<ResidualAttentionBlock>();
      torch::nn::init::normal_(block->attn->in_proj_weight, 0.0, attn_std);
      torch::nn::init::normal_(block->attn->out_proj->weight, 0.0, proj_std);
      torch::nn::init::normal_(block->mlp->c_fc->weight, 0.0, fc_std);
      torch::nn::init::normal_(block->mlp->c_proj->weight, 0.0, proj_std);
    }
  };
  init_blocks(transformer);
  init_blocks(visual->transformer);
  torch::nn::init::normal_(text_projection, 0.0, std::pow(static_cast<double>(c.text_width), -0.5));
}

ImageFeatures ClipModelImpl::encode_image(const torch::Tensor& images, TowerOutputs outputs) {
  return visual(images, outputs);
}

TextFeatures ClipModelImpl::encode_text(const torch::Tensor& all_tokens, TowerOutputs outputs) {
  // Positions after the batch's last end token are padding that, under the causal mask, no pooled
  // feature can see: dropping them is exact and saves much of the text tower on short captions.
  const int64_t used = all_tokens.argmax(-1).max().item<int64_t>() + 1;
  const auto tokens = all_tokens.slice(1, 0, used);
  const int64_t l = tokens.size(1);
  auto x = token_embedding(tokens) + text_positions(l);
  // Pool at the end token: it has the largest id, so argmax finds it (OpenAI CLIP's rule).
  const auto eot = tokens.argmax(-1);
  TextFeatures out;
  if (outputs == TowerOutputs::Pooled) {
    out.pooled =
        torch::matmul(layer_norm_fp32(ln_final, transformer->forward_rows(x, eot, /*causal=*/true)),
                      text_projection);
    return out;
  }
  x = transformer(x, /*causal=*/true);
  out.hidden = x;
  x = layer_norm_fp32(ln_final, x);
  auto rows = torch::arange(tokens.size(0), eot.options());
  out.pooled = torch::matmul(x.index({rows, eot}), text_projection);
  if (outputs == TowerOutputs::Tokens) {
    out.tokens = torch::matmul(x, text_projection);
    auto pos = torch::arange(l, eot.options()).unsqueeze(0);
    out.mask = (pos > 0) & (pos < eot.unsqueeze(1));
  }
  return out;
}

torch::Tensor ClipModelImpl::text_positions(int64_t length) const {
  const int64_t keep = config_.frozen_positions;
  if (keep == 0 || length <= keep) return positional_embedding.slice(0, 0, length);
  // Long-CLIP adds positional_embedding * mask1 + positional_embedding_res * mask2 with 0/1 row
  // masks; taking the rows is the same sum exactly (x*1 + y*0 == x for finite values) and gives
  // the frozen table no gradient at all.
  return torch::cat({positional_embedding.slice(0, 0, keep),
                     positional_embedding_res.slice(0, keep, length)});
}

torch::Tensor ClipModelImpl::scale() { return logit_scale.exp().clamp_max(kMaxLogitScale); }

}  // namespace hnclip
