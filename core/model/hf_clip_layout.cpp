#include "model/hf_clip_layout.h"

#include <torch/torch.h>

#include <map>
#include <regex>

#include "model/clip_state_dict.h"

namespace hnclip {

namespace {
constexpr double kLayerNormEps = 1e-5;  // torch::nn::LayerNorm's, and CLIP's
constexpr int64_t kMlpRatio = 4;        // ResidualAttentionBlock's MLP width
constexpr int64_t kLegacyEosTokenId = 2;  // transformers: "eos_token_id == 2" means pool at argmax
constexpr int64_t kImageChannels = 3;

// transformers' CLIPTextConfig / CLIPVisionConfig / CLIPConfig defaults (4.3x).
const std::map<std::string, nlohmann::json> kTextDefaults = {
    {"vocab_size", 49408},         {"hidden_size", 512},       {"intermediate_size", 2048},
    {"num_hidden_layers", 12},     {"num_attention_heads", 8}, {"max_position_embeddings", 77},
    {"hidden_act", "quick_gelu"},  {"layer_norm_eps", 1e-5},   {"eos_token_id", 49407}};
const std::map<std::string, nlohmann::json> kVisionDefaults = {
    {"hidden_size", 768},        {"intermediate_size", 3072}, {"num_hidden_layers", 12},
    {"num_attention_heads", 12}, {"image_size", 224},         {"patch_size", 32},
    {"hidden_act", "quick_gelu"}, {"layer_norm_eps", 1e-5},   {"num_channels", 3}};
constexpr int64_t kDefaultProjectionDim = 512;

struct ConfigReader {
  const nlohmann::json& j;
  std::string prefix;  // "text_config." ...
  const std::map<std::string, nlohmann::json>& defaults;
  const std::string& source;
  std::vector<std::string>& notes;

  const nlohmann::json& value(const std::string& key) const {
    if (j.contains(key) && !j.at(key).is_null()) return j.at(key);
    notes.push_back(prefix + key + " absent: transformers' default " + defaults.at(key).dump());
    return defaults.at(key);
  }
  int64_t integer(const std::string& key) const {
    const auto& v = value(key);
    if (!v.is_number_integer() || v.get<int64_t>() <= 0) {
      throw StateDictError(source + ": config.json key " + prefix + key + " is " + v.dump() +
                           ", not a positive integer");
    }
    return v.get<int64_t>();
  }
  std::string text(const std::string& key) const {
    const auto& v = value(key);
    if (!v.is_string()) {
      throw StateDictError(source + ": config.json key " + prefix + key + " is " + v.dump() +
                           ", not a string");
    }
    return v.get<std::string>();
  }
};

const nlohmann::json& tower(const nlohmann::json& config, const char* key, const std::string& source) {
  if (!config.contains(key) || !config.at(key).is_object()) {
    throw StateDictError(source + ": config.json has no '" + key +
                         "' object (not a CLIPModel config: a text or vision model alone is not "
                         "supported)");
  }
  return config.at(key);
}

MlpActivation activation_of(const ConfigReader& r) {
  const auto name = r.text("hidden_act");
  try {
    return parse_activation(name, r.source + ": config.json key " + r.prefix + "hidden_act");
  } catch (const std::invalid_argument& e) {
    throw StateDictError(e.what());
  }
}

void check_mlp_and_eps(const ConfigReader& r, int64_t width) {
  if (r.integer("intermediate_size") != kMlpRatio * width) {
    throw StateDictError(r.source + ": config.json key " + r.prefix + "intermediate_size is " +
                         std::to_string(r.integer("intermediate_size")) + ", the workbench's MLP is " +
                         std::to_string(kMlpRatio) + " x hidden_size = " +
                         std::to_string(kMlpRatio * width));
  }
  const auto& eps = r.value("layer_norm_eps");
  if (!eps.is_number() || std::abs(eps.get<double>() - kLayerNormEps) > 1e-12) {
    throw StateDictError(r.source + ": config.json key " + r.prefix + "layer_norm_eps is " +
                         eps.dump() + ", the workbench's LayerNorm uses 1e-05");
  }
}

std::string hf_tower(const std::string& openai_prefix) {
  return openai_prefix == "visual." ? "vision_model." : "text_model.";
}
}  // namespace

HfClipConfig hf_clip_config_from_json(const nlohmann::json& config, const std::string& source) {
  if (!config.is_object()) throw StateDictError(source + ": config.json is not a JSON object");
  if (config.contains("model_type") && config.at("model_type") != "clip") {
    throw StateDictError(source + ": config.json key model_type is " +
                         config.at("model_type").dump() +
                         ": only CLIPModel (model_type \"clip\") is supported");
  }
  HfClipConfig out;
  const auto& text_json = tower(config, "text_config", source);
  const auto& vision_json = tower(config, "vision_config", source);
  const ConfigReader text{text_json, "text_config.", kTextDefaults, source, out.notes};
  const ConfigReader vision{vision_json, "vision_config.", kVisionDefaults, source, out.notes};
  auto& c = out.shape;
  c.text_width = text.integer("hidden_size");
  c.text_layers = text.integer("num_hidden_layers");
  c.text_heads = text.integer("num_attention_heads");
  c.context_length = text.integer("max_position_embeddings");
  c.vocab_size = text.integer("vocab_size");
  c.vision_width = vision.integer("hidden_size");
  c.vision_layers = vision.integer("num_hidden_layers");
  c.vision_heads = vision.integer("num_attention_heads");
  c.image_size = vision.integer("image_size");
  c.patch_size = vision.integer("patch_size");
  if (vision.integer("num_channels") != kImageChannels) {
    throw StateDictError(source + ": config.json key vision_config.num_channels is not 3");
  }
  check_mlp_and_eps(text, c.text_width);
  check_mlp_and_eps(vision, c.vision_width);
  if (config.contains("projection_dim")) {
    const auto& p = config.at("projection_dim");
    if (!p.is_number_integer() || p.get<int64_t>() <= 0) {
      throw StateDictError(source + ": config.json key projection_dim is " + p.dump() +
                           ", not a positive integer");
    }
    c.embed_dim = p.get<int64_t>();
  } else {
    out.notes.push_back("projection_dim absent: transformers' default 512");
    c.embed_dim = kDefaultProjectionDim;
  }
  const auto text_act = activation_of(text), vision_act = activation_of(vision);
  if (text_act != vision_act) {
    throw StateDictError(source + ": config.json keys text_config.hidden_act (" +
                         activation_name(text_act) + ") and vision_config.hidden_act (" +
                         activation_name(vision_act) +
                         ") differ: the workbench's towers share one activation");
  }
  c.activation = text_act;
  const auto& eos = text.value("eos_token_id");
  if (!eos.is_number_integer()) {
    throw StateDictError(source + ": config.json key text_config.eos_token_id is " + eos.dump() +
                         ", not an integer");
  }
  out.eos_token_id = eos.get<int64_t>();
  // transformers pools at argmax(ids) for the legacy id 2, else at the first eos_token_id; the
  // workbench pools at argmax, which is the same position only when the end token is the largest id.
  if (out.eos_token_id != kLegacyEosTokenId && out.eos_token_id != c.vocab_size - 1) {
    throw StateDictError(source + ": config.json key text_config.eos_token_id is " +
                         std::to_string(out.eos_token_id) + ", not the largest token id (" +
                         std::to_string(c.vocab_size - 1) +
                         "): pooling at another token than argmax is not supported");
  }
  try {
    c.validate();
  } catch (const std::invalid_argument& e) {
    throw StateDictError(source + ": config.json: " + e.what());
  }
  return out;
}

nlohmann::json hf_clip_config_json(const ClipConfig& c, int64_t bos_token_id, int64_t eos_token_id) {
  const auto act = activation_name(c.activation);
  return {
      {"architectures", {"CLIPModel"}},
      {"model_type", "clip"},
      {"projection_dim", c.embed_dim},
      {"logit_scale_init_value", 2.6592},
      {"initializer_factor", 1.0},
      {"text_config",
       {{"model_type", "clip_text_model"},
        {"vocab_size", c.vocab_size},
        {"hidden_size", c.text_width},
        {"intermediate_size", kMlpRatio * c.text_width},
        {"projection_dim", c.embed_dim},
        {"num_hidden_layers", c.text_layers},
        {"num_attention_heads", c.text_heads},
        {"max_position_embeddings", c.context_length},
        {"hidden_act", act},
        {"layer_norm_eps", kLayerNormEps},
        {"bos_token_id", bos_token_id},
        {"eos_token_id", eos_token_id},
        {"pad_token_id", eos_token_id}}},
      {"vision_config",
       {{"model_type", "clip_vision_model"},
        {"hidden_size", c.vision_width},
        {"intermediate_size", kMlpRatio * c.vision_width},
        {"projection_dim", c.embed_dim},
        {"num_hidden_layers", c.vision_layers},
        {"num_attention_heads", c.vision_heads},
        {"num_channels", kImageChannels},
        {"image_size", c.image_size},
        {"patch_size", c.patch_size},
        {"hidden_act", act},
        {"layer_norm_eps", kLayerNormEps}}}};
}

StateDict clip_state_dict_from_hf(StateDict hf, const std::string& source) {
  static const std::regex layer(R"(^(text_model|vision_model)\.encoder\.layers\.(\d+)\.(.+)$)");
  static const std::regex qkv(R"(^self_attn\.([qkv])_proj\.(weight|bias)$)");
  static const std::map<std::string, std::string> block_names = {
      {"self_attn.out_proj.weight", "attn.out_proj.weight"},
      {"self_attn.out_proj.bias", "attn.out_proj.bias"},
      {"layer_norm1.weight", "ln_1.weight"}, {"layer_norm1.bias", "ln_1.bias"},
      {"layer_norm2.weight", "ln_2.weight"}, {"layer_norm2.bias", "ln_2.bias"},
      {"mlp.fc1.weight", "mlp.c_fc.weight"}, {"mlp.fc1.bias", "mlp.c_fc.bias"},
      {"mlp.fc2.weight", "mlp.c_proj.weight"}, {"mlp.fc2.bias", "mlp.c_proj.bias"}};
  static const std::map<std::string, std::string> plain_names = {
      {"text_model.embeddings.token_embedding.weight", "token_embedding.weight"},
      {"text_model.embeddings.position_embedding.weight", "positional_embedding"},
      {"text_model.final_layer_norm.weight", "ln_final.weight"},
      {"text_model.final_layer_norm.bias", "ln_final.bias"},
      {"vision_model.embeddings.class_embedding", "visual.class_embedding"},
      {"vision_model.embeddings.patch_embedding.weight", "visual.conv1.weight"},
      {"vision_model.embeddings.position_embedding.weight", "visual.positional_embedding"},
      {"vision_model.pre_layrnorm.weight", "visual.ln_pre.weight"},
      {"vision_model.pre_layrnorm.bias", "visual.ln_pre.bias"},
      {"vision_model.post_layernorm.weight", "visual.ln_post.weight"},
      {"vision_model.post_layernorm.bias", "visual.ln_post.bias"},
      {"logit_scale", "logit_scale"}};
  StateDict out;
  // q, k, v of one block ("transformer.resblocks.N.attn.in_proj_weight" -> parts by letter),
  // packed once all three are seen, in first-seen order.
  std::vector<std::string> packed_order;
  std::map<std::string, std::map<char, torch::Tensor>> packed;
  std::vector<std::string> unknown;
  for (auto& [key, t] : hf) {
    std::smatch m;
    if (const auto it = plain_names.find(key); it != plain_names.end()) {
      out.emplace_back(it->second, std::move(t));
    } else if (key == "text_projection.weight" || key == "visual_projection.weight") {
      if (t.dim() != 2) throw StateDictError(source + ": '" + key + "' is not a matrix");
      out.emplace_back(key == "text_projection.weight" ? "text_projection" : "visual.proj",
                       t.t().contiguous());
    } else if (key == "text_model.embeddings.position_ids" ||
               key == "vision_model.embeddings.position_ids") {
      // A buffer transformers used to save: only 0..n-1 is harmless to drop.
      const auto flat = t.reshape({-1}).to(torch::kLong);
      if (!flat.equal(torch::arange(flat.numel(), torch::kLong))) {
        throw StateDictError(source + ": '" + key + "' is not 0, 1, 2, ...: positions are remapped, "
                             "which the workbench does not do");
      }
    } else if (std::regex_match(key, m, layer)) {
      const std::string prefix = (m[1] == "vision_model" ? "visual." : "") +
                                 std::string("transformer.resblocks.") + m[2].str() + ".";
      const std::string rest = m[3];
      if (const auto b = block_names.find(rest); b != block_names.end()) {
        out.emplace_back(prefix + b->second, std::move(t));
      } else if (std::smatch p; std::regex_match(rest, p, qkv)) {
        // self_attn.q_proj.weight -> attn.in_proj_weight (part q)
        const std::string target = prefix + "attn.in_proj_" + p[2].str();
        if (!packed.count(target)) packed_order.push_back(target);
        packed[target][p[1].str()[0]] = std::move(t);
      } else {
        unknown.push_back(key);
      }
    } else {
      unknown.push_back(key);
    }
  }
  if (!unknown.empty()) {
    std::string list;
    for (size_t i = 0; i < unknown.size() && i < 8; ++i) list += (i ? ", " : "") + unknown[i];
    if (unknown.size() > 8) list += ", ... (" + std::to_string(unknown.size()) + " in all)";
    throw StateDictError(source + ": keys that are not part of a CLIPModel the workbench can "
                         "represent: " + list);
  }
  for (const auto& target : packed_order) {
    auto& parts = packed[target];
    for (const char part : {'q', 'k', 'v'}) {
      if (!parts.count(part)) {
        throw StateDictError(source + ": " + std::string(1, part) + "_proj of " + target +
                             " is missing (q, k and v are packed together)");
      }
    }
    out.emplace_back(target, torch::cat({parts['q'], parts['k'], parts['v']}, 0));
  }
  return out;
}

StateDict hf_state_dict_from_clip(const StateDict& clip) {
  static const std::regex block(R"(^(visual\.)?transformer\.resblocks\.(\d+)\.(.+)$)");
  static const std::map<std::string, std::string> block_names = {
      {"attn.out_proj.weight", "self_attn.out_proj.weight"},
      {"attn.out_proj.bias", "self_attn.out_proj.bias"},
      {"ln_1.weight", "layer_norm1.weight"}, {"ln_1.bias", "layer_norm1.bias"},
      {"ln_2.weight", "layer_norm2.weight"}, {"ln_2.bias", "layer_norm2.bias"},
      {"mlp.c_fc.weight", "mlp.fc1.weight"}, {"mlp.c_fc.bias", "mlp.fc1.bias"},
      {"mlp.c_proj.weight", "mlp.fc2.weight"}, {"mlp.c_proj.bias", "mlp.fc2.bias"}};
  static const std::map<std::string, std::string> plain_names = {
      {"token_embedding.weight", "text_model.embeddings.token_embedding.weight"},
      {"positional_embedding", "text_model.embeddings.position_embedding.weight"},
      {"ln_final.weight", "text_model.final_layer_norm.weight"},
      {"ln_final.bias", "text_model.final_layer_norm.bias"},
      {"visual.class_embedding", "vision_model.embeddings.class_embedding"},
      {"visual.conv1.weight", "vision_model.embeddings.patch_embedding.weight"},
      {"visual.positional_embedding", "vision_model.embeddings.position_embedding.weight"},
      {"visual.ln_pre.weight", "vision_model.pre_layrnorm.weight"},
      {"visual.ln_pre.bias", "vision_model.pre_layrnorm.bias"},
      {"visual.ln_post.weight", "vision_model.post_layernorm.weight"},
      {"visual.ln_post.bias", "vision_model.post_layernorm.bias"},
      {"logit_scale", "logit_scale"}};
  StateDict out;
  for (const auto& [key, t] : clip) {
    std::smatch m;
    if (const auto it = plain_names.find(key); it != plain_names.end()) {
      out.emplace_back(it->second, t);
    } else if (key == "text_projection") {
      out.emplace_back("text_projection.weight", t.t().contiguous());
    } else if (key == "visual.proj") {
      out.emplace_back("visual_projection.weight", t.t().contiguous());
    } else if (std::regex_match(key, m, block)) {
      const std::string prefix = hf_tower(m[1].str()) + "encoder.layers." + m[2].str() + ".";
      const std::string rest = m[3];
      if (const auto b = block_names.find(rest); b != block_names.end()) {
        out.emplace_back(prefix + b->second, t);
      } else if (rest == "attn.in_proj_weight" || rest == "attn.in_proj_bias") {
        const std::string suffix = rest == "attn.in_proj_weight" ? "weight" : "bias";
        const auto parts = t.chunk(3, 0);
        out.emplace_back(prefix + "self_attn.q_proj." + suffix, parts[0].contiguous());
        out.emplace_back(prefix + "self_attn.k_proj." + suffix, parts[1].contiguous());
        out.emplace_back(prefix + "self_attn.v_proj." + suffix, parts[2].contiguous());
      } else {
        throw StateDictError("no Hugging Face CLIPModel name for '" + key + "'");
      }
    } else {
      throw StateDictError("no Hugging Face CLIPModel name for '" + key +
                           "' (Long-CLIP's second position table has none)");
    }
  }
  return out;
}

}  // namespace hnclip
