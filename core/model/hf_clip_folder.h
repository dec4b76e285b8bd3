#pragma once
// Writing a model as a Hugging Face CLIPModel folder (what transformers' save_pretrained lays
// out): config.json, the weights under HF names (model.safetensors, with transformers'
// __metadata__ {"format": "pt"}), and the tokenizer: CLIP's BPE as vocab.json +
// merges.txt, or, for the workbench's word tokenizer (which transformers has no class for), its
// own description in hnclip_tokenizer.json, which the workbench reads back. Reading such folders
// is model/pretrained_file.h's.

#include <string>

#include <nlohmann/json.hpp>

#include "model/clip_config.h"
#include "model/state_dict_file.h"

namespace hnclip {

// `weights` under OpenAI CLIP names (model_state_dict), `tokenizer` as Tokenizer::to_json().
// The folder must not exist or be empty; it is written next to itself first and renamed, so a
// failure leaves nothing half-written. Throws StateDictError naming the folder for Long-CLIP's
// split position table (no HF equivalent) and for I/O failures.
void write_hf_clip_folder(const std::string& folder, const ClipConfig& shape,
                          const StateDict& weights, const nlohmann::json& tokenizer);

// The weight file write_hf_clip_folder writes.
// (transformers' own default since 4.35; the workbench reads pytorch_model.bin folders too).
constexpr const char* kHfWeightsFileWritten = "model.safetensors";

}  // namespace hnclip
