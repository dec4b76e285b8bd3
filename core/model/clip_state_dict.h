#pragma once
// OpenAI CLIP and Long-CLIP state dicts (ViT models) onto ClipModel: the shape inferred from the
// tensors as OpenAI's build_model does, name-for-name copying with every misfit reported, and
// Long-CLIP's stretch of a 77-position text table to 248 positions (its load_from_clip).

#include <ATen/core/Tensor.h>

#include <string>

#include "model/clip_config.h"
#include "model/clip_model.h"
#include "model/state_dict_file.h"

namespace hnclip {

// Rows of Long-CLIP's text position table kept as CLIP learnt them (and frozen).
constexpr int64_t kLongClipFrozenPositions = 20;

// The model shape of a CLIP ViT state dict, read off the tensor shapes (vision width from
// visual.conv1.weight, layers by counting resblocks.N, heads = width / 64, ...). A dict with
// positional_embedding_res is Long-CLIP (frozen_positions = 20). Throws StateDictError naming
// `source` for a ResNet CLIP (not supported), a missing key or an inconsistent shape.
ClipConfig infer_clip_config(const StateDict& sd, const std::string& source);

// A shape that a config file declares (`declared_by`: "config.json", "open_clip_config.json")
// against the shape of the tensors (infer_clip_config; heads and activation are the config's
// alone): throws StateDictError "<source>: <declared_by> contradicts the
// weights: field declared vs weights, ..." naming every differing field.
void check_config_fits_weights(const ClipConfig& declared, const StateDict& sd,
                               const std::string& source, const std::string& declared_by);

// Copies `sd` into `model` by name, converting half/bfloat16 to the model's dtype; the integer
// entries input_resolution, context_length and vocab_size of OpenAI's TorchScript files are
// skipped. Nothing is copied unless everything fits; otherwise throws StateDictError naming
// `source` and listing every missing key, unexpected key and shape mismatch.
void load_clip_state_dict(ClipModel& model, const StateDict& sd, const std::string& source);
// The same checks and copies, but each entry of `sd` is reset right after it is copied, so when
// `sd` holds the only references (as read_safetensors_file's views do) the peak memory is the
// model plus one tensor. On a misfit it throws before touching the model or `sd`.
void load_clip_state_dict(ClipModel& model, StateDict&& sd, const std::string& source);

// Long-CLIP's stretch of a [77, W] table to [248, W]: rows 0-19 kept; each row i in 20..75
// becomes four rows interpolating from P[i] towards P[i+1] (weights 1, 3/4, 1/2, 1/4 on P[i]);
// the last four rows extrapolate P[76] + k (P[76] - P[75]) / 4, k = 0..3.
torch::Tensor long_clip_stretch_positions(const torch::Tensor& p77);

// A 77-position CLIP state dict turned into a Long-CLIP one: positional_embedding stretched to
// 248 rows and positional_embedding_res a copy of it (how Long-CLIP starts fine-tuning).
// Throws StateDictError naming `source` when the dict has no 77-row positional_embedding.
StateDict long_clip_from_clip_state_dict(const StateDict& sd, const std::string& source);

// read_state_dict_file + infer_clip_config + load_clip_state_dict. `stretch_to_long_clip`
// applies long_clip_from_clip_state_dict first (for a 77-position file).
ClipModel load_clip_model_file(const std::string& path, bool stretch_to_long_clip = false);

}  // namespace hnclip
