#include "model/open_clip_layout.h"

#include <torch/torch.h>

#include "model/clip_state_dict.h"

namespace hnclip {

namespace {
constexpr int64_t kDefaultHeadWidth = 64;  // open_clip's CLIPVisionCfg.head_width
constexpr int64_t kDefaultTextHeads = 8;   // open_clip's CLIPTextCfg.heads
constexpr double kMlpRatio = 4.0;

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool all_keys_start_with(const StateDict& sd, const std::string& prefix) {
  if (sd.empty()) return false;
  for (const auto& [k, v] : sd) {
    if (!starts_with(k, prefix)) return false;
  }
  return true;
}

[[noreturn]] void unsupported(const std::string& source, const std::string& key,
                              const std::string& what) {
  throw StateDictError(source + ": " + key + ": " + what + " is not supported (the workbench "
                       "represents OpenAI-style ViT CLIP only)");
}

// A config value that must keep open_clip's default for the model to be representable.
void require_default(const nlohmann::json& cfg, const std::string& prefix, const std::string& key,
                     const nlohmann::json& wanted, const std::string& source, const std::string& what) {
  if (!cfg.contains(key) || cfg.at(key).is_null() || cfg.at(key) == wanted) return;
  unsupported(source, "open_clip_config.json key " + prefix + key + " = " + cfg.at(key).dump(), what);
}

int64_t positive(const nlohmann::json& cfg, const std::string& prefix, const std::string& key,
                 int64_t fallback, const std::string& source) {
  if (!cfg.contains(key) || cfg.at(key).is_null()) return fallback;
  const auto& v = cfg.at(key);
  if (!v.is_number_integer() || v.get<int64_t>() <= 0) {
    throw StateDictError(source + ": open_clip_config.json key " + prefix + key + " is " +
                         v.dump() + ", not a positive integer");
  }
  return v.get<int64_t>();
}
}  // namespace

StateDict strip_open_clip_prefixes(StateDict sd) {
  for (const std::string prefix : {"module.", "_orig_mod."}) {
    if (!all_keys_start_with(sd, prefix)) continue;
    for (auto& [k, v] : sd) k = k.substr(prefix.size());
  }
  bool custom_text = false;
  for (const auto& [k, v] : sd) custom_text = custom_text || k == "text.token_embedding.weight";
  if (custom_text) {
    for (auto& [k, v] : sd) {
      if (starts_with(k, "text.")) k = k.substr(5);
    }
  }
  return sd;
}

void check_representable_clip(const StateDict& sd, const std::string& source) {
  for (const auto& [k, v] : sd) {
    if (k == "logit_bias") unsupported(source, "'logit_bias'", "a SigLIP (sigmoid loss) head");
    if (starts_with(k, "visual.layer1.") || starts_with(k, "visual.attnpool.")) {
      unsupported(source, "'" + k + "'", "a ResNet image tower");
    }
    if (starts_with(k, "visual.trunk.")) unsupported(source, "'" + k + "'", "a timm image tower");
    if (starts_with(k, "text.transformer.") || starts_with(k, "text.proj.")) {
      unsupported(source, "'" + k + "'", "a Hugging Face text tower");
    }
    if (k.find(".ls_1.") != std::string::npos || k.find(".ls_2.") != std::string::npos) {
      unsupported(source, "'" + k + "'", "layer scale");
    }
    if (starts_with(k, "visual.attn_pool") || starts_with(k, "text_decoder.")) {
      unsupported(source, "'" + k + "'", "CoCa (attentional pooler / text decoder)");
    }
  }
}

ClipConfig open_clip_shape(const nlohmann::json& config, const StateDict& weights,
                           const std::string& source) {
  const nlohmann::json& model = config.contains("model_cfg") ? config.at("model_cfg") : config;
  if (!model.is_object()) throw StateDictError(source + ": open_clip_config.json: model_cfg is not an object");
  if (model.contains("multimodal_cfg")) {
    unsupported(source, "open_clip_config.json key model_cfg.multimodal_cfg", "CoCa");
  }
  if (model.contains("init_logit_bias")) {
    unsupported(source, "open_clip_config.json key model_cfg.init_logit_bias", "a SigLIP head");
  }
  for (const char* tower : {"vision_cfg", "text_cfg"}) {
    if (!model.contains(tower) || !model.at(tower).is_object()) {
      throw StateDictError(source + ": open_clip_config.json has no model_cfg." + tower + " object");
    }
  }
  const auto& vision = model.at("vision_cfg");
  const auto& text = model.at("text_cfg");
  const std::string vp = "model_cfg.vision_cfg.", tp = "model_cfg.text_cfg.";
  if (vision.contains("layers") && vision.at("layers").is_array()) {
    unsupported(source, "open_clip_config.json key " + vp + "layers (a list)", "a ResNet image tower");
  }
  require_default(vision, vp, "timm_model_name", nullptr, source, "a timm image tower");
  require_default(text, tp, "hf_model_name", nullptr, source, "a Hugging Face text tower");
  require_default(vision, vp, "ls_init_value", nullptr, source, "layer scale");
  require_default(text, tp, "ls_init_value", nullptr, source, "layer scale");
  require_default(vision, vp, "mlp_ratio", kMlpRatio, source, "an MLP ratio other than 4");
  require_default(text, tp, "mlp_ratio", kMlpRatio, source, "an MLP ratio other than 4");
  require_default(vision, vp, "attentional_pool", false, source, "attentional pooling");
  require_default(vision, vp, "global_average_pool", false, source, "average pooling of patches");
  require_default(vision, vp, "pool_type", "tok", source, "another image pooling");
  require_default(vision, vp, "no_ln_pre", false, source, "an image tower without ln_pre");
  require_default(vision, vp, "final_ln_after_pool", false, source, "LayerNorm after pooling");
  require_default(vision, vp, "pos_embed_type", "learnable", source, "another position embedding");
  require_default(text, tp, "pool_type", "argmax", source, "another text pooling");
  require_default(text, tp, "embed_cls", false, source, "a text class token");
  require_default(text, tp, "no_causal_mask", false, source, "a text tower without causal mask");
  require_default(text, tp, "final_ln_after_pool", false, source, "LayerNorm after pooling");
  require_default(text, tp, "proj_bias", false, source, "a biased text projection");
  check_representable_clip(weights, source);

  ClipConfig c = infer_clip_config(weights, source);
  ClipConfig declared = c;
  declared.vision_width = positive(vision, vp, "width", c.vision_width, source);
  declared.vision_layers = positive(vision, vp, "layers", c.vision_layers, source);
  declared.patch_size = positive(vision, vp, "patch_size", c.patch_size, source);
  declared.image_size = positive(vision, vp, "image_size", c.image_size, source);
  declared.text_width = positive(text, tp, "width", c.text_width, source);
  declared.text_layers = positive(text, tp, "layers", c.text_layers, source);
  declared.context_length = positive(text, tp, "context_length", c.context_length, source);
  declared.vocab_size = positive(text, tp, "vocab_size", c.vocab_size, source);
  declared.embed_dim = positive(model, "model_cfg.", "embed_dim", c.embed_dim, source);
  const int64_t head_width = positive(vision, vp, "head_width", kDefaultHeadWidth, source);
  declared.vision_heads = declared.vision_width / head_width;
  declared.text_heads = positive(text, tp, "heads", kDefaultTextHeads, source);
  const bool quick = model.contains("quick_gelu") && model.at("quick_gelu").is_boolean() &&
                     model.at("quick_gelu").get<bool>();
  if (model.contains("quick_gelu") && !model.at("quick_gelu").is_boolean()) {
    throw StateDictError(source + ": open_clip_config.json key model_cfg.quick_gelu is " +
                         model.at("quick_gelu").dump() + ", not true or false");
  }
  declared.activation = quick ? MlpActivation::QuickGelu : MlpActivation::Gelu;
  check_config_fits_weights(declared, weights, source, "open_clip_config.json");
  try {
    declared.validate();
  } catch (const std::invalid_argument& e) {
    throw StateDictError(source + ": open_clip_config.json: " + e.what());
  }
  return declared;
}

}  // namespace hnclip
