#include "model/clip_config.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hnclip {

namespace {
void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("invalid model config: " + what);
}
}  // namespace

void ClipConfig::validate() const {
  require(image_size > 0, "image_size must be > 0");
  require(patch_size > 0 && image_size % patch_size == 0,
          "image_size (" + std::to_string(image_size) + ") must be a multiple of patch_size (" +
              std::to_string(patch_size) + ")");
  require(vision_width > 0 && vision_heads > 0 && vision_width % vision_heads == 0,
          "vision_width must be a positive multiple of vision_heads");
  require(text_width > 0 && text_heads > 0 && text_width % text_heads == 0,
          "text_width must be a positive multiple of text_heads");
  require(vision_layers > 0 && text_layers > 0, "layer counts must be > 0");
  require(context_length >= 3, "context_length must be >= 3");
  require(vocab_size >= 3, "vocab_size must be >= 3");
  require(embed_dim > 0, "embed_dim must be > 0");
  require(frozen_positions >= 0 && frozen_positions < context_length,
          "frozen_positions must be in [0, context_length)");
}

bool ClipConfig::operator==(const ClipConfig& o) const {
  return image_size == o.image_size && patch_size == o.patch_size &&
         vision_width == o.vision_width && vision_layers == o.vision_layers &&
         vision_heads == o.vision_heads && context_length == o.context_length &&
         vocab_size == o.vocab_size && text_width == o.text_width &&
         text_layers == o.text_layers && text_heads == o.text_heads && embed_dim == o.embed_dim &&
         frozen_positions == o.frozen_positions && activation == o.activation;
}

std::string activation_name(MlpActivation a) {
  return a == MlpActivation::Gelu ? kGeluName : kQuickGeluName;
}

MlpActivation parse_activation(const std::string& name, const std::string& what) {
  if (name == kQuickGeluName) return MlpActivation::QuickGelu;
  if (name == kGeluName) return MlpActivation::Gelu;
  throw std::invalid_argument(what + ": unknown activation '" + name + "' (known: " +
                              kQuickGeluName + ", " + kGeluName + ")");
}

std::vector<std::string> clip_preset_names() {
  return {"tiny", "ViT-B/32", "ViT-B/16", "ViT-L/14", "ViT-L/14-336"};
}

ClipConfig clip_preset(const std::string& name, int64_t vocab_size, int64_t context_length) {
  ClipConfig c;
  c.vocab_size = vocab_size;
  c.context_length = context_length;
  if (name == "tiny") {
    // The pretraining recipe (README, round 2): small enough for ~1k img/s on a core.
    c.image_size = 48; c.patch_size = 8; c.vision_width = 64; c.vision_layers = 2;
    c.vision_heads = 2; c.text_width = 64; c.text_layers = 2; c.text_heads = 2; c.embed_dim = 64;
  } else if (name == "ViT-B/32" || name == "ViT-B/16") {
    c.image_size = 224; c.patch_size = name == "ViT-B/32" ? 32 : 16; c.vision_width = 768;
    c.vision_layers = 12; c.vision_heads = 12; c.text_width = 512; c.text_layers = 12;
    c.text_heads = 8; c.embed_dim = 512;
  } else if (name == "ViT-L/14" || name == "ViT-L/14-336") {
    c.image_size = name == "ViT-L/14" ? 224 : 336; c.patch_size = 14; c.vision_width = 1024;
    c.vision_layers = 24; c.vision_heads = 16; c.text_width = 768; c.text_layers = 12;
    c.text_heads = 12; c.embed_dim = 768;
  } else {
    std::string known;
    for (const auto& n : clip_preset_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown model preset '" + name + "' (known: " + known + ")");
  }
  return c;
}

std::string describe_differences(const ClipConfig& a, const ClipConfig& b) {
  const nlohmann::json ja = a, jb = b;
  std::string out;
  for (const auto& [key, value] : ja.items()) {
    if (value != jb.at(key)) out += (out.empty() ? "" : ", ") + key + " " + value.dump() + " vs " + jb.at(key).dump();
  }
  return out;
}

void to_json(nlohmann::json& j, const ClipConfig& c) {
  j = nlohmann::json{{"image_size", c.image_size},         {"patch_size", c.patch_size},
                     {"vision_width", c.vision_width},     {"vision_layers", c.vision_layers},
                     {"vision_heads", c.vision_heads},     {"context_length", c.context_length},
                     {"vocab_size", c.vocab_size},         {"text_width", c.text_width},
                     {"text_layers", c.text_layers},       {"text_heads", c.text_heads},
                     {"embed_dim", c.embed_dim},           {"frozen_positions", c.frozen_positions},
                     {"activation", activation_name(c.activation)}};
}

void from_json(const nlohmann::json& j, ClipConfig& c) {
  auto get = [&](const char* key, int64_t& out) {
    if (!j.contains(key) || !j.at(key).is_number_integer()) {
      throw std::invalid_argument(std::string("model config: missing or non-integer key '") +
                                  key + "'");
    }
    out = j.at(key).get<int64_t>();
  };
  get("image_size", c.image_size); get("patch_size", c.patch_size);
  get("vision_width", c.vision_width); get("vision_layers", c.vision_layers);
  get("vision_heads", c.vision_heads); get("context_length", c.context_length);
  get("vocab_size", c.vocab_size); get("text_width", c.text_width);
  get("text_layers", c.text_layers); get("text_heads", c.text_heads);
  get("embed_dim", c.embed_dim);
  // Absent in checkpoints written before Long-CLIP support: those are plain CLIP.
  c.frozen_positions = 0;
  if (j.contains("frozen_positions")) get("frozen_positions", c.frozen_positions);
  // Absent before open_clip support: every such checkpoint was QuickGELU (OpenAI's, Long-CLIP's,
  // or trained here, where QuickGELU was the only MLP).
  c.activation = MlpActivation::QuickGelu;
  if (j.contains("activation")) {
    if (!j.at("activation").is_string()) {
      throw std::invalid_argument("model config: key 'activation' is not a string");
    }
    c.activation = parse_activation(j.at("activation").get<std::string>(), "model config: key 'activation'");
  }
}

}  // namespace hnclip
