#pragma once
// open_clip's checkpoints on the workbench's (OpenAI CLIP's) layout. open_clip's ViT CLIP uses
// OpenAI's parameter names, so the weights map name for name; what differs is around them:
//   - the hub's open_clip_config.json ({"model_cfg": {"embed_dim", "quick_gelu", "vision_cfg",
//     "text_cfg"}, ...}) is the only record of the activation: LAION's models use exact GELU
//     ("quick_gelu" absent or false) under the same names as OpenAI's QuickGELU ones;
//   - training checkpoints ({"epoch", "name", "state_dict", "optimizer"}) carry DDP's "module."
//     (and torch.compile's "_orig_mod.") prefixes and no architecture at all;
//   - CustomTextCLIP files keep the text tower under "text.".
// Models the workbench cannot represent are refused by name (see check_representable_clip).

#include <string>

#include <nlohmann/json.hpp>

#include "model/clip_config.h"
#include "model/state_dict_file.h"

namespace hnclip {

// Strips "module." / "_orig_mod." when every key has it, and CustomTextCLIP's "text." from its
// text tower's keys.
StateDict strip_open_clip_prefixes(StateDict sd);

// Refuses, naming `source` and the key that shows it, what ClipModel cannot hold: a ResNet image
// tower, a timm or Hugging Face tower, SigLIP's logit_bias, layer scale (ls_1 / ls_2), CoCa's
// attentional pooler or text decoder.
void check_representable_clip(const StateDict& sd, const std::string& source);

// The shape of an open_clip ViT CLIP from its config and its (stripped) weights: sizes read off
// the tensors, heads from the config (width / head_width, text heads), the activation from
// model_cfg.quick_gelu (absent = false = exact GELU, as open_clip's default). Throws
// StateDictError naming `source` and the key for a config the workbench cannot represent (a
// ResNet or timm / HF tower, another pooling, layer scale, an MLP ratio other than 4, SigLIP's
// init_logit_bias, CoCa's multimodal_cfg) or one that contradicts the weights.
ClipConfig open_clip_shape(const nlohmann::json& config, const StateDict& weights,
                           const std::string& source);

}  // namespace hnclip
