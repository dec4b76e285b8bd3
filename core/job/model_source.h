#pragma once
// ModelSource: a model file to start from (train --init) or to encode with (encode --checkpoint),
// whichever kind it is: a workbench checkpoint (shape and tokenizer in its header) or an OpenAI
// CLIP / Long-CLIP ViT state dict (shape read off the tensors; the CLIP BPE tokenizer from a
// vocabulary file the user names, at the file's context length, 77 or 248).

#include <string>

#include <nlohmann/json.hpp>

#include "model/clip_config.h"
#include "model/clip_model.h"
#include "model/state_dict_file.h"

namespace hnclip {

struct ModelSource {
  std::string path;
  bool workbench = true;        // false: an OpenAI / Long-CLIP state dict
  ClipConfig shape;
  nlohmann::json tokenizer;     // Tokenizer::to_json() form, for tokenizer_from_json
  StateDict clip_weights;       // the state dict's tensors (read once); empty for a workbench file
};

// Reads the header (workbench) or the whole state dict (CLIP). `flag` ("--init", "--checkpoint")
// and "--vocab" are what error messages name: ConfigError when a CLIP file comes without a
// readable --vocab, CheckpointError / StateDictError for an unreadable or unfitting file.
// With need_tokenizer false a CLIP file may come without --vocab (tokenizer then stays null).
// With long_clip a 77-position CLIP file becomes a Long-CLIP one (long_clip_from_clip_state_dict);
// a workbench checkpoint is then refused with ConfigError naming --long-clip.
ModelSource open_model_source(const std::string& path, const std::string& vocab,
                              const std::string& flag, bool need_tokenizer = true,
                              bool long_clip = false);

// Copies the source's weights into `model` (built with source.shape).
void load_model_source_weights(const ModelSource& source, ClipModel& model);

}  // namespace hnclip
