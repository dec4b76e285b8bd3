#pragma once
// ClipConfig: the shape of a CLIP dual encoder (OpenAI's architecture), and the named presets.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace hnclip {

// The MLP non-linearity of every transformer block. OpenAI's CLIP and Long-CLIP weights were trained
// with QuickGELU; open_clip's LAION models (and Hugging Face configs with hidden_act "gelu") with
// exact GELU, under the same parameter names, so it must be known, never guessed from the tensors.
enum class MlpActivation { QuickGelu, Gelu };

constexpr const char* kQuickGeluName = "quick_gelu";
constexpr const char* kGeluName = "gelu";
// "quick_gelu" / "gelu": the spelling of checkpoints, exports, HF's hidden_act and --activation.
std::string activation_name(MlpActivation a);
// Throws std::invalid_argument "<what>: unknown activation 'x' (known: quick_gelu, gelu)".
MlpActivation parse_activation(const std::string& name, const std::string& what);

struct ClipConfig {
  // Image tower (ViT).
  int64_t image_size = 48;
  int64_t patch_size = 8;
  int64_t vision_width = 64;
  int64_t vision_layers = 2;
  int64_t vision_heads = 2;
  // Text tower (causal transformer, pooled at the end token).
  int64_t context_length = 96;
  int64_t vocab_size = 0;  // set from the tokenizer
  int64_t text_width = 64;
  int64_t text_layers = 2;
  int64_t text_heads = 2;
  // Long-CLIP: the first frozen_positions rows of the text position table stay frozen (they carry
  // what the 77-position CLIP learnt best) and a second, trainable table positional_embedding_res
  // serves positions frozen_positions.. ; 0 = plain CLIP (one trainable table).
  int64_t frozen_positions = 0;
  // Joint embedding.
  int64_t embed_dim = 64;
  // Both towers' MLPs. Checkpoints written before it was a key were all QuickGELU.
  MlpActivation activation = MlpActivation::QuickGelu;

  int64_t grid() const { return image_size / patch_size; }
  // Throws std::invalid_argument naming the first inconsistent field.
  void validate() const;
  bool operator==(const ClipConfig& o) const;
};

// "tiny" (trains on 2 CPU cores in minutes), "ViT-B/32", "ViT-B/16", "ViT-L/14", "ViT-L/14-336".
// vocab_size and context_length come from the tokenizer. Throws std::invalid_argument for an
// unknown name, listing the known ones.
ClipConfig clip_preset(const std::string& name, int64_t vocab_size, int64_t context_length);
// "field a vs b, ..." for every field that differs; empty when equal.
std::string describe_differences(const ClipConfig& a, const ClipConfig& b);
std::vector<std::string> clip_preset_names();

void to_json(nlohmann::json& j, const ClipConfig& c);
void from_json(const nlohmann::json& j, ClipConfig& c);

}  // namespace hnclip
