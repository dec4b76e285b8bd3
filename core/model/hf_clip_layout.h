#pragma once
// Hugging Face transformers' CLIPModel layout ↔ the workbench's (OpenAI CLIP's) layout: the
// config.json that describes the architecture, and the parameter names of its state dict.
//
// Names (N = layer; the text tower under text_model., the image tower under vision_model.):
//   embeddings.token_embedding.weight        token_embedding.weight
//   embeddings.position_embedding.weight     positional_embedding / visual.positional_embedding
//   embeddings.class_embedding               visual.class_embedding
//   embeddings.patch_embedding.weight        visual.conv1.weight
//   pre_layrnorm.*  (HF's spelling)          visual.ln_pre.*
//   post_layernorm.* / final_layer_norm.*    visual.ln_post.* / ln_final.*
//   encoder.layers.N.self_attn.{q,k,v}_proj  …resblocks.N.attn.in_proj_{weight,bias} (packed q;k;v)
//   encoder.layers.N.self_attn.out_proj      …resblocks.N.attn.out_proj
//   encoder.layers.N.layer_norm{1,2}         …resblocks.N.ln_{1,2}
//   encoder.layers.N.mlp.fc{1,2}             …resblocks.N.mlp.c_{fc,proj}
//   visual_projection.weight [E, W]          visual.proj [W, E]   (transposed: Linear vs x @ P)
//   text_projection.weight [E, W]            text_projection [W, E]
//   logit_scale                              logit_scale
// The position_ids buffers older files carry are dropped (checked to be 0, 1, 2, ...).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/clip_config.h"
#include "model/state_dict_file.h"

namespace hnclip {

struct HfClipConfig {
  ClipConfig shape;                 // vocab_size and context_length as the config says
  int64_t eos_token_id = 0;         // text pooling: 2 = legacy argmax, else the end token's id
  std::vector<std::string> notes;   // keys that were absent and took transformers' default
};

// Reads a CLIPModel config.json (already parsed). Absent keys take transformers' CLIPTextConfig /
// CLIPVisionConfig defaults (as transformers itself does; each such key is listed in notes), and
// every value that the weights also say is checked against them later
// (check_hf_config_fits_weights). Refused, naming `source` and the key: another model_type
// (SigLIP, ...), a missing text_config / vision_config, a hidden_act other than quick_gelu / gelu
// or differing between the towers, an MLP that is not 4x wide, a layer_norm_eps other than 1e-5,
// a pooling the workbench does not do (eos_token_id that is not the largest token id).
HfClipConfig hf_clip_config_from_json(const nlohmann::json& config, const std::string& source);

// The config.json transformers writes for `shape` (CLIPModel, every key spelled out).
nlohmann::json hf_clip_config_json(const ClipConfig& shape, int64_t bos_token_id,
                                   int64_t eos_token_id);

// HF names → OpenAI names (q/k/v packed, projections transposed), consuming `hf`. Unknown keys,
// a missing q/k/v part or a position_ids buffer that is not 0..n-1 are refused naming `source`
// and the key; the result is then checked and loaded like any OpenAI-layout state dict.
StateDict clip_state_dict_from_hf(StateDict hf, const std::string& source);

// OpenAI names → HF names (in_proj split into q/k/v, projections transposed).
StateDict hf_state_dict_from_clip(const StateDict& clip);

}  // namespace hnclip
