#pragma once
// ModelSource: a model file to start from (train --init) or to encode with (encode --checkpoint),
// whichever kind it is: a workbench checkpoint (shape and tokenizer in its header) or an OpenAI
// CLIP / Long-CLIP ViT state dict (shape read off the tensors; the CLIP BPE tokenizer at the file's
// context length, 77 or 248, from the vocabulary the user names or else the shipped one).

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
  // Non-empty when a CLIP file's vocabulary was not given and the shipped one is used: the line
  // to tell the user (the caller logs it), naming the file and --vocab.
  std::string vocab_note;
};

// Reads the header (workbench) or the whole state dict (CLIP). `flag` ("--init", "--checkpoint")
// and "--vocab" are what error messages name: ConfigError when --vocab (or, with none given, the
// shipped vocabulary) is not a file, CheckpointError / StateDictError for an unreadable or
// unfitting file. With need_tokenizer false a CLIP file's vocabulary is not checked.
// With long_clip a 77-position CLIP file becomes a Long-CLIP one (long_clip_from_clip_state_dict);
// a workbench checkpoint is then refused with ConfigError naming --long-clip.
ModelSource open_model_source(const std::string& path, const std::string& vocab,
                              const std::string& flag, bool need_tokenizer = true,
                              bool long_clip = false);

// Copies the source's weights into `model` (built with source.shape).
void load_model_source_weights(const ModelSource& source, ClipModel& model);

}  // namespace hnclip
