// Tests core/model: OpenAI parameter names and shapes, presets, end-token pooling, causality.

#include "model/clip_model.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

namespace hnclip {
namespace {

ClipConfig small_config() {
  ClipConfig c = clip_preset("tiny", 30, 12);
  return c;
}

TEST(ClipModel, ParameterNamesAndShapesFollowOpenAi) {
  ClipModel m(small_config());
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& p : m->named_parameters()) shapes[p.key()] = p.value().sizes().vec();
  const std::map<std::string, std::vector<int64_t>> expected{
      {"visual.conv1.weight", {64, 3, 8, 8}},
      {"visual.class_embedding", {64}},
      {"visual.positional_embedding", {37, 64}},
      {"visual.ln_pre.weight", {64}},
      {"visual.transformer.resblocks.0.attn.in_proj_weight", {192, 64}},
      {"visual.transformer.resblocks.0.attn.in_proj_bias", {192}},
      {"visual.transformer.resblocks.1.attn.out_proj.weight", {64, 64}},
      {"visual.transformer.resblocks.1.mlp.c_fc.weight", {256, 64}},
      {"visual.transformer.resblocks.1.mlp.c_proj.bias", {64}},
      {"visual.ln_post.bias", {64}},
      {"visual.proj", {64, 64}},
      {"token_embedding.weight", {30, 64}},
      {"positional_embedding", {12, 64}},
      {"transformer.resblocks.1.ln_2.weight", {64}},
      {"ln_final.weight", {64}},
      {"text_projection", {64, 64}},
      {"logit_scale", {}},
  };
  for (const auto& [name, shape] : expected) {
    ASSERT_TRUE(shapes.count(name)) << "missing parameter " << name;
    EXPECT_EQ(shapes[name], shape) << name;
  }
  // No stray parameters (2 blocks per tower, 12 tensors per block, 8 vision + 6 text others).
  EXPECT_EQ(shapes.size(), 2u * 2u * 12u + 8u + 6u);
  EXPECT_EQ(shapes.count("visual.conv1.bias"), 0u);  // CLIP's patchify conv has no bias
}

TEST(ClipModel, PresetsHaveOpenAiShapes) {
  auto b32 = clip_preset("ViT-B/32", 49408, 77);
  EXPECT_EQ(b32.vision_width, 768);
  EXPECT_EQ(b32.grid(), 7);
  EXPECT_EQ(b32.embed_dim, 512);
  auto l14 = clip_preset("ViT-L/14", 49408, 248);
  EXPECT_EQ(l14.vision_layers, 24);
  EXPECT_EQ(l14.grid(), 16);
  EXPECT_EQ(l14.text_width, 768);
  EXPECT_THROW(clip_preset("ViT-H/99", 10, 10), std::invalid_argument);
}

TEST(ClipModel, TextIsPooledAtTheEndTokenAndIsCausal) {
  torch::manual_seed(1);
  ClipModel m(small_config());
  m->eval();
  torch::NoGradGuard no_grad;
  // end token = 29 (the largest id) at position 4; padding after it.
  auto a = torch::tensor({{28, 5, 6, 7, 29, 0, 0, 0, 0, 0, 0, 0}}, torch::kLong);
  auto b = a.clone();
  b[0][7] = 13;  // after the end token: must not change the pooled feature (causal mask)
  auto c = a.clone();
  c[0][2] = 9;  // before the end token: must change it
  auto fa = m->encode_text(a).pooled, fb = m->encode_text(b).pooled, fc = m->encode_text(c).pooled;
  EXPECT_EQ(fa.sizes(), (std::vector<int64_t>{1, 64}));
  EXPECT_TRUE(torch::allclose(fa, fb, 1e-6, 1e-6));
  EXPECT_FALSE(torch::allclose(fa, fc, 1e-3, 1e-3));
  auto tok = m->encode_text(a, TowerOutputs::Tokens);
  EXPECT_EQ(tok.tokens.sizes(), (std::vector<int64_t>{1, 5, 64}));  // trimmed after the end token
  EXPECT_EQ(tok.mask.sum().item<int64_t>(), 3);                     // words at positions 1..3
  EXPECT_TRUE(torch::allclose(tok.tokens[0][4], fa[0], 1e-6, 1e-6));
}

TEST(ClipModel, TrimmingPaddingDoesNotChangeFeatures) {
  // Row 0 alone is trimmed to 3 positions, in the batch to 9 (row 1's end token): same feature.
  torch::manual_seed(3);
  ClipModel m(small_config());
  m->eval();
  torch::NoGradGuard no_grad;
  auto batch = torch::tensor(
      {{28, 5, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {28, 5, 6, 7, 8, 9, 10, 11, 29, 0, 0, 0}},
      torch::kLong);
  auto together = m->encode_text(batch).pooled;
  auto alone = m->encode_text(batch.slice(0, 0, 1)).pooled;
  EXPECT_TRUE(torch::allclose(together[0], alone[0], 1e-5, 1e-6));
}

TEST(ClipModel, ImageFeaturesAndScale) {
  torch::manual_seed(2);
  ClipModel m(small_config());
  auto img = m->encode_image(torch::randn({3, 3, 48, 48}), TowerOutputs::Tokens);
  EXPECT_EQ(img.pooled.sizes(), (std::vector<int64_t>{3, 64}));
  EXPECT_EQ(img.patches.sizes(), (std::vector<int64_t>{3, 36, 64}));
  EXPECT_NEAR(m->scale().item<double>(), 1.0 / 0.07, 1e-3);
  torch::NoGradGuard no_grad;
  m->logit_scale.fill_(std::log(1000.0));
  EXPECT_DOUBLE_EQ(m->scale().item<double>(), 100.0);  // clamped
}

TEST(ClipModel, LongClipUsesFrozenRowsThenTheTrainableTable) {
  ClipConfig c = clip_preset("tiny", 30, 40);
  c.frozen_positions = 20;
  torch::manual_seed(4);
  ClipModel m(c);
  ASSERT_TRUE(m->positional_embedding_res.defined());
  EXPECT_EQ(m->positional_embedding_res.sizes(), (std::vector<int64_t>{40, 64}));
  EXPECT_FALSE(m->positional_embedding.requires_grad());
  EXPECT_TRUE(m->positional_embedding_res.requires_grad());
  {
    torch::NoGradGuard no_grad;
    m->positional_embedding_res.normal_();  // make the two tables differ
  }
  const auto pos = m->text_positions(40);
  EXPECT_TRUE(torch::equal(pos.slice(0, 0, 20), m->positional_embedding.slice(0, 0, 20)));
  EXPECT_TRUE(torch::equal(pos.slice(0, 20), m->positional_embedding_res.slice(0, 20)));
  // Gradient reaches only the rows past 20 of the trainable table, and never the frozen one.
  auto tokens = torch::zeros({1, 40}, torch::kLong);
  tokens[0][0] = 28;
  tokens.slice(1, 1, 30).fill_(5);
  tokens[0][30] = 29;
  m->encode_text(tokens).pooled.sum().backward();
  EXPECT_FALSE(m->positional_embedding.grad().defined());
  const auto g = m->positional_embedding_res.grad();
  ASSERT_TRUE(g.defined());
  EXPECT_EQ(g.slice(0, 0, 20).abs().sum().item<double>(), 0.0);
  EXPECT_GT(g.slice(0, 20, 31).abs().sum().item<double>(), 0.0);
  // Only trainable parameters are listed by requires_grad (what the trainer's optimiser takes).
  int64_t trainable = 0, all = 0;
  for (const auto& p : m->named_parameters()) {
    ++all;
    trainable += p.value().requires_grad() ? 1 : 0;
  }
  EXPECT_EQ(all, 2 * 2 * 12 + 8 + 7);
  EXPECT_EQ(trainable, all - 1);
}

TEST(ClipConfig, JsonRoundTripKeepsFrozenPositionsAndDefaultsOldFiles) {
  ClipConfig c = clip_preset("ViT-L/14", 49408, 248);
  c.frozen_positions = 20;
  nlohmann::json j = c;
  EXPECT_TRUE(j.get<ClipConfig>() == c);
  j.erase("frozen_positions");  // a checkpoint from before Long-CLIP support
  EXPECT_EQ(j.get<ClipConfig>().frozen_positions, 0);
  c.frozen_positions = 248;
  EXPECT_THROW(c.validate(), std::invalid_argument);
}

TEST(ClipConfig, ActivationIsStoredAndOldFilesAreQuickGelu) {
  ClipConfig c = clip_preset("tiny", 50, 8);
  c.activation = MlpActivation::Gelu;
  nlohmann::json j = c;
  EXPECT_EQ(j.at("activation"), "gelu");
  EXPECT_TRUE(j.get<ClipConfig>() == c);
  j.erase("activation");  // a checkpoint from before the key existed
  EXPECT_EQ(j.get<ClipConfig>().activation, MlpActivation::QuickGelu);
  j["activation"] = "relu";
  EXPECT_THROW(j.get<ClipConfig>(), std::invalid_argument);
  EXPECT_NE(describe_differences(c, clip_preset("tiny", 50, 8)).find("activation"), std::string::npos);
}

TEST(ClipModel, GeluAndQuickGeluModelsDifferOnTheSameWeights) {
  torch::manual_seed(0);
  ClipConfig quick = clip_preset("tiny", 50, 8), exact = quick;
  exact.activation = MlpActivation::Gelu;
  ClipModel a(quick), b(exact);
  {
    torch::NoGradGuard no_grad;
    auto pa = a->named_parameters(), pb = b->named_parameters();
    for (const auto& p : pa) pb[p.key()].copy_(p.value());
  }
  a->eval();
  b->eval();
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({2, 3, 48, 48});
  const auto fa = a->encode_image(x).pooled, fb = b->encode_image(x).pooled;
  EXPECT_GT((fa - fb).abs().max().item<double>(), 1e-4);
  // The block's MLP is c_proj(gelu(c_fc(h))) exactly (erf form).
  auto block = b->visual->transformer->resblocks[0]->as<ResidualAttentionBlock>();
  const auto h = torch::randn({2, 5, 64});
  const auto want = block->mlp->c_proj(torch::gelu(block->mlp->c_fc(h)));
  EXPECT_TRUE(torch::allclose(block->mlp->forward(h), want, 0, 0));
}

TEST(ClipModel, PooledOnlyTowersMatchTheWholeTowersWithTheirGradients) {
  // TowerOutputs::Pooled runs the last block on the pooled rows only (class token, each caption's
  // own end token under the causal mask): the same features and parameter gradients as the whole
  // tower. The end tokens sit at different positions, and a padding id after an early one would
  // change its feature if the row's mask let it through.
  torch::manual_seed(5);
  ClipModel m(small_config());
  const auto images = torch::randn({3, 3, 48, 48});
  const auto tokens = torch::tensor({{28, 5, 29, 7, 7, 7, 0, 0, 0, 0, 0, 0},
                                     {28, 5, 6, 7, 8, 9, 10, 29, 0, 0, 0, 0},
                                     {28, 11, 12, 29, 0, 0, 0, 0, 0, 0, 0, 0}},
                                    torch::kLong);
  const auto weights = torch::randn({3, 64});
  auto run = [&](TowerOutputs outputs) {
    m->zero_grad();
    const auto image = m->encode_image(images, outputs).pooled;
    const auto text = m->encode_text(tokens, outputs).pooled;
    ((image * weights).sum() + (text * weights).pow(2).sum()).backward();
    std::map<std::string, torch::Tensor> grads;
    for (const auto& p : m->named_parameters()) {
      if (p.value().grad().defined()) grads[p.key()] = p.value().grad().clone();
    }
    return std::make_tuple(image.detach(), text.detach(), grads);
  };
  const auto [image, text, grads] = run(TowerOutputs::Pooled);
  for (const auto outputs : {TowerOutputs::Hidden, TowerOutputs::Tokens}) {
    const auto [image_all, text_all, grads_all] = run(outputs);
    EXPECT_TRUE(torch::allclose(image, image_all, 1e-5, 1e-6))
        << (image - image_all).abs().max().item<double>();
    EXPECT_TRUE(torch::allclose(text, text_all, 1e-5, 1e-6))
        << (text - text_all).abs().max().item<double>();
    ASSERT_EQ(grads.size(), grads_all.size());
    for (const auto& [name, g] : grads_all) {
      ASSERT_EQ(grads.count(name), 1u) << name;
      const double scale = g.abs().max().item<double>();
      EXPECT_GT(scale, 0.0) << name;
      EXPECT_LE((grads.at(name) - g).abs().max().item<double>(), 1e-5 * scale) << name;
    }
  }
  // What Pooled leaves out is absent rather than stale.
  EXPECT_FALSE(m->encode_image(images).hidden.defined());
  EXPECT_FALSE(m->encode_text(tokens).tokens.defined());
  EXPECT_TRUE(m->encode_text(tokens, TowerOutputs::Hidden).hidden.defined());
  EXPECT_FALSE(m->encode_text(tokens, TowerOutputs::Hidden).tokens.defined());
}

}  // namespace
}  // namespace hnclip
