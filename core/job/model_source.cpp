#include "job/model_source.h"

#include <torch/torch.h>

#include <filesystem>

#include "model/clip_state_dict.h"
#include "train/checkpoint.h"
#include "train/train_config.h"

namespace hnclip {

ModelSource open_model_source(const std::string& path, const std::string& vocab,
                              const std::string& flag, bool need_tokenizer, bool long_clip) {
  ModelSource s;
  s.path = path;
  s.workbench = is_workbench_checkpoint(path);
  if (s.workbench && long_clip) {
    throw ConfigError("--long-clip stretches an OpenAI CLIP state dict, but " + flag + " " + path +
                      " is a workbench checkpoint");
  }
  if (s.workbench) {
    const auto meta = read_checkpoint_meta(path);
    s.shape = meta.model;
    s.tokenizer = meta.tokenizer;
    return s;
  }
  // A CLIP file brings no tokenizer: check the vocabulary before reading (maybe gigabytes of)
  // weights.
  if (vocab.empty() && need_tokenizer) {
    throw ConfigError(flag + " " + path + " is an OpenAI CLIP / Long-CLIP state dict: its BPE "
                      "vocabulary must be given with --vocab PATH (bpe_simple_vocab_16e6.txt.gz)");
  }
  if (!vocab.empty() && !std::filesystem::is_regular_file(vocab)) throw ConfigError("--vocab " + vocab + ": no such file");
  s.clip_weights = read_state_dict_file(path);
  if (long_clip) s.clip_weights = long_clip_from_clip_state_dict(s.clip_weights, path);
  s.shape = infer_clip_config(s.clip_weights, path);
  if (vocab.empty()) return s;
  s.tokenizer = {{"kind", "clip-bpe"}, {"vocab_path", vocab}, {"context_length", s.shape.context_length}};
  return s;
}

void load_model_source_weights(const ModelSource& source, ClipModel& model) {
  if (source.workbench) {
    load_checkpoint_weights(source.path, model);
  } else {
    load_clip_state_dict(model, source.clip_weights, source.path);
  }
}

}  // namespace hnclip
