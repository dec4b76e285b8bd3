// Tests core/model/hf_clip_layout: config.json -> architecture (defaults noted, every
// unrepresentable or inconsistent value refused naming the key), and the name mapping both ways
// (q/k/v packing, transposed projections) being exact and refusing what it cannot map.

#include "model/hf_clip_layout.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>

#include "model/make_clip_model.h"
#include "model/model_state_dict.h"

namespace hnclip {
namespace {

nlohmann::json full_config() {
  ClipConfig c;
  c.vocab_size = 49408;
  c.context_length = 77;
  c.text_heads = 2;
  return hf_clip_config_json(c, 49406, 49407);
}

std::string error_of(const nlohmann::json& config) {
  try {
    hf_clip_config_from_json(config, "folder/config.json");
  } catch (const StateDictError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HfClipLayout, ConfigRoundTripsThroughTheWrittenJson) {
  ClipConfig c;
  c.vocab_size = 300;
  c.context_length = 20;
  c.text_heads = 4;
  c.activation = MlpActivation::Gelu;
  const auto back = hf_clip_config_from_json(hf_clip_config_json(c, 298, 299), "x");
  EXPECT_EQ(back.shape, c) << describe_differences(back.shape, c);
  EXPECT_EQ(back.eos_token_id, 299);
  EXPECT_TRUE(back.notes.empty());
}

TEST(HfClipLayout, AbsentKeysTakeTransformersDefaultsAndAreNoted) {
  auto config = full_config();
  config["text_config"].erase("num_attention_heads");
  config["text_config"].erase("hidden_act");
  const auto r = hf_clip_config_from_json(config, "x");
  EXPECT_EQ(r.shape.text_heads, 8);
  EXPECT_EQ(r.shape.activation, MlpActivation::QuickGelu);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_NE(r.notes[0].find("text_config.num_attention_heads"), std::string::npos) << r.notes[0];
}

TEST(HfClipLayout, UnrepresentableConfigsAreRefusedNamingTheKey) {
  auto c = full_config();
  c["model_type"] = "siglip";
  EXPECT_NE(error_of(c).find("model_type"), std::string::npos);
  c = full_config();
  c.erase("vision_config");
  EXPECT_NE(error_of(c).find("'vision_config'"), std::string::npos);
  c = full_config();
  c["text_config"]["hidden_act"] = "gelu_new";
  EXPECT_NE(error_of(c).find("text_config.hidden_act"), std::string::npos) << error_of(c);
  c = full_config();
  c["vision_config"]["hidden_act"] = "gelu";
  EXPECT_NE(error_of(c).find("differ"), std::string::npos) << error_of(c);
  c = full_config();
  c["vision_config"]["intermediate_size"] = 3 * c["vision_config"]["hidden_size"].get<int>();
  EXPECT_NE(error_of(c).find("vision_config.intermediate_size"), std::string::npos) << error_of(c);
  c = full_config();
  c["text_config"]["layer_norm_eps"] = 1e-6;
  EXPECT_NE(error_of(c).find("text_config.layer_norm_eps"), std::string::npos) << error_of(c);
  c = full_config();
  c["text_config"]["eos_token_id"] = 5;
  EXPECT_NE(error_of(c).find("text_config.eos_token_id"), std::string::npos) << error_of(c);
  c = full_config();
  c["text_config"]["hidden_size"] = "wide";
  EXPECT_NE(error_of(c).find("text_config.hidden_size"), std::string::npos) << error_of(c);
  c = full_config();
  c["text_config"]["eos_token_id"] = 2;  // transformers' legacy "pool at argmax"
  EXPECT_EQ(error_of(c), "(no error)");
}

StateDict tiny_weights() {
  ClipConfig c;
  c.vocab_size = 50;
  c.context_length = 8;
  auto model = make_clip_model(c, 3);
  return model_state_dict(model);
}

TEST(HfClipLayout, NamesMapBothWaysExactly) {
  const auto clip = tiny_weights();
  const auto hf = hf_state_dict_from_clip(clip);
  std::map<std::string, torch::Tensor> hf_by_name(hf.begin(), hf.end());
  ASSERT_TRUE(hf_by_name.count("text_model.encoder.layers.1.self_attn.k_proj.weight"));
  ASSERT_TRUE(hf_by_name.count("vision_model.pre_layrnorm.bias"));
  ASSERT_TRUE(hf_by_name.count("visual_projection.weight"));
  std::map<std::string, torch::Tensor> clip_by_name(clip.begin(), clip.end());
  EXPECT_TRUE(hf_by_name["visual_projection.weight"].equal(clip_by_name["visual.proj"].t()));
  EXPECT_TRUE(hf_by_name["text_model.encoder.layers.1.self_attn.k_proj.weight"].equal(
      clip_by_name["transformer.resblocks.1.attn.in_proj_weight"].chunk(3, 0)[1]));
  const auto back = clip_state_dict_from_hf(hf, "x");
  ASSERT_EQ(back.size(), clip.size());
  for (const auto& [k, v] : back) {
    ASSERT_TRUE(clip_by_name.count(k)) << k;
    EXPECT_TRUE(v.equal(clip_by_name[k])) << k;
  }
}

TEST(HfClipLayout, WhatCannotBeMappedIsRefusedNamingTheKey) {
  const auto hf = hf_state_dict_from_clip(tiny_weights());
  auto missing_v = hf;
  missing_v.erase(std::remove_if(missing_v.begin(), missing_v.end(),
                                 [](const auto& kv) { return kv.first == "text_model.encoder.layers.0.self_attn.v_proj.bias"; }),
                  missing_v.end());
  try {
    clip_state_dict_from_hf(missing_v, "m.bin");
    FAIL() << "a missing v_proj was accepted";
  } catch (const StateDictError& e) {
    EXPECT_NE(std::string(e.what()).find("v_proj of transformer.resblocks.0.attn.in_proj_bias"), std::string::npos) << e.what();
  }
  auto extra = hf;
  extra.emplace_back("text_model.encoder.layers.0.self_attn.rotary.weight", torch::zeros({2}));
  try {
    clip_state_dict_from_hf(extra, "m.bin");
    FAIL() << "an unknown key was accepted";
  } catch (const StateDictError& e) {
    EXPECT_NE(std::string(e.what()).find("rotary"), std::string::npos) << e.what();
  }
  auto shuffled = hf;
  shuffled.emplace_back("text_model.embeddings.position_ids", torch::tensor({{1, 0, 2}}));
  try {
    clip_state_dict_from_hf(shuffled, "m.bin");
    FAIL() << "remapped positions were accepted";
  } catch (const StateDictError& e) {
    EXPECT_NE(std::string(e.what()).find("position_ids"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hnclip
