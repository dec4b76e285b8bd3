#pragma once
// PretrainedFile: CLIP weights from outside the workbench, whatever their kind, recognised by
// content (never by extension) and brought onto OpenAI CLIP's names with the architecture they
// need, or refused naming the file and the key:
//   - an OpenAI TorchScript archive (clip.load's .pt) or a torch.save state dict (OpenAI layout,
//     Long-CLIP, open_clip's open_clip_pytorch_model.bin);
//   - a training checkpoint {"epoch", "name", "state_dict": {"module.…"}, "optimizer"} (open_clip);
//   - a safetensors file (OpenAI / open_clip layout; the workbench's own exports carry their model
//     config in __metadata__);
//   - a Hugging Face CLIPModel folder (config.json + model.safetensors or pytorch_model.bin, and
//     its tokenizer files) or one of its weight files;
//   - an open_clip hub folder (open_clip_config.json + open_clip_model.safetensors or
//     open_clip_pytorch_model.bin) or one of its weight files.
// The MLP activation is taken from a config where one exists; where none does it is --activation,
// else QuickGELU (what OpenAI and Long-CLIP released) with a note saying so, except for files that
// may hold either kind (open_clip training checkpoints and open_clip weight files without their
// config), which are refused naming --activation: a guess there gives wrong features silently.
// Free functions; any thread.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/clip_config.h"
#include "model/state_dict_file.h"

namespace hnclip {

enum class PretrainedFormat {
  TorchScript,         // OpenAI's released archives
  StateDict,           // torch.save of a dict of tensors
  TrainingCheckpoint,  // torch.save of {"state_dict": ..., "optimizer": ..., ...}
  Safetensors,
  HuggingFaceClip,     // a CLIPModel folder
  OpenClipHub,         // an open_clip hub folder
};
// "torchscript", "state-dict", "training-checkpoint", "safetensors", "hf-clip", "open_clip".
std::string pretrained_format_name(PretrainedFormat f);

struct PretrainedFile {
  std::string path;          // as given: a file or a folder
  std::string weights_path;  // the file the tensors were read from
  std::string config_path;   // config.json / open_clip_config.json; "" when there is none
  PretrainedFormat format = PretrainedFormat::StateDict;
  ClipConfig shape;          // architecture, activation included
  bool activation_known = true;  // false only from inspect_pretrained_file (see there)
  std::string activation_from;   // "config.json text_config.hidden_act", "--activation", ...
  StateDict weights;             // OpenAI CLIP names, as stored (dtype)
  std::vector<std::string> notes;  // lines for the user: assumptions and defaults taken
  // A Hugging Face folder's tokenizer: vocab.json + merges.txt, or the workbench's own tokenizer
  // (hnclip_tokenizer.json, which export --format hf writes for a word tokenizer); empty if none.
  std::string hf_vocab_json, hf_merges_txt;
  nlohmann::json workbench_tokenizer;
};

// `activation` is "" (decide as above) or a name parse_activation accepts; `flag` ("--init",
// "--checkpoint") is how messages name the path. A given --activation that contradicts a config
// is refused. Throws StateDictError naming the file and the key.
PretrainedFile read_pretrained_file(const std::string& path, const std::string& activation,
                                    const std::string& flag);

// Like read_pretrained_file, but a file whose activation cannot be known is described (with
// activation_known false) instead of refused: what `hnclip inspect` shows.
PretrainedFile inspect_pretrained_file(const std::string& path, const std::string& activation,
                                       const std::string& flag);

// The file names a folder of each kind holds, in the order they are looked for.
constexpr const char* kHfConfigFile = "config.json";
constexpr const char* kOpenClipConfigFile = "open_clip_config.json";
constexpr const char* kWorkbenchTokenizerFile = "hnclip_tokenizer.json";
// The safetensors __metadata__ keys of the workbench's own exports: its model config (heads and
// activation included, which the tensors do not say), and a word tokenizer (a run from scratch's,
// which no CLIP vocabulary could stand in for) as the JSON its checkpoint records.
constexpr const char* kWorkbenchModelKey = "hnclip.model";
constexpr const char* kWorkbenchTokenizerKey = "hnclip.tokenizer";

}  // namespace hnclip
