#pragma once
// ModelSource: a model file or folder to start from (train --init) or to encode with (encode
// --checkpoint), whichever kind it is, recognised by content: a workbench checkpoint (shape and
// tokenizer in its header) or anything model/pretrained_file.h reads (OpenAI / Long-CLIP /
// open_clip state dicts and TorchScript archives, safetensors, Hugging Face CLIPModel and open_clip
// folders). Those are tokenized with the CLIP BPE tokenizer at the file's context length from the
// vocabulary the user names or else the shipped one (a Hugging Face folder's own tokenizer files
// are checked to be that vocabulary), or with the workbench tokenizer an HF export carries.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/clip_config.h"
#include "model/clip_model.h"
#include "model/state_dict_file.h"

namespace hnclip {

struct ModelSource {
  std::string path;
  bool workbench = true;        // false: read by read_pretrained_file
  std::string kind;             // "workbench" or pretrained_format_name()
  ClipConfig shape;
  nlohmann::json tokenizer;     // Tokenizer::to_json() form, for tokenizer_from_json
  StateDict clip_weights;       // the state dict's tensors (read once); empty for a workbench file
  // Lines to tell the user (the caller logs them): the shipped vocabulary used (naming --vocab),
  // an activation assumed (naming --activation), config defaults taken.
  std::vector<std::string> notes;
};

// Reads the header (workbench) or the whole state dict (CLIP). `flag` ("--init", "--checkpoint")
// and "--vocab" are what error messages name: ConfigError when --vocab (or, with none given, the
// shipped vocabulary) is not a file, CheckpointError / StateDictError for an unreadable or
// unfitting file. With need_tokenizer false a CLIP file's vocabulary is not checked.
// With long_clip a 77-position CLIP file becomes a Long-CLIP one (long_clip_from_clip_state_dict);
// a workbench checkpoint is then refused with ConfigError naming --long-clip. `activation` ("" or
// quick_gelu / gelu) is --activation (see read_pretrained_file); a workbench checkpoint records its
// own, and one that differs is refused; so is a --vocab beside it, which its own tokenizer would
// leave unread (`encode --vocab missing.gz` of a workbench checkpoint said nothing).
ModelSource open_model_source(const std::string& path, const std::string& vocab,
                              const std::string& flag, bool need_tokenizer = true,
                              bool long_clip = false, const std::string& activation = "");

// A workbench checkpoint (by content: a TorchScript archive with the workbench's header), not
// a folder or another kind of model file.
bool is_workbench_model_file(const std::string& path);

// Copies the source's weights into `model` (built with source.shape), releasing each of the
// source's tensors once copied (a mapped safetensors file then never costs twice the weights).
void load_model_source_weights(ModelSource& source, ClipModel& model);

}  // namespace hnclip
