#include "job/model_source.h"

#include <torch/torch.h>

#include <filesystem>

#include "job/workbench_paths.h"
#include "model/clip_state_dict.h"
#include "text/tokenizer.h"
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
  // weights. Every CLIP package ships the same file, and so does the workbench.
  const std::string vocab_used = vocab.empty() ? shipped_clip_vocab() : vocab;
  const bool have_vocab = std::filesystem::is_regular_file(vocab_used);
  if (!have_vocab && (need_tokenizer || !vocab.empty())) {
    throw ConfigError(vocab.empty() ? flag + " " + path +
                                          " is an OpenAI CLIP / Long-CLIP state "
                                          "dict and the shipped BPE vocabulary " +
                                          vocab_used + " is missing: give one with --vocab PATH"
                                    : "--vocab " + vocab + ": no such file");
  }
  s.clip_weights = read_state_dict_file(path);
  if (long_clip) s.clip_weights = long_clip_from_clip_state_dict(s.clip_weights, path);
  s.shape = infer_clip_config(s.clip_weights, path);
  // Images alone need no tokenizer: the shipped vocabulary is not forced on a file it may not fit.
  if (!have_vocab || (!need_tokenizer && vocab.empty())) return s;
  if (vocab.empty())
    s.vocab_note = flag + " " + path + ": tokenized with the shipped CLIP BPE vocabulary " +
                   vocab_used + " (--vocab names another)";
  s.tokenizer = {
      {"kind", "clip-bpe"}, {"vocab_path", vocab_used}, {"context_length", s.shape.context_length}};
  // Ids the embedding has no row for would fail deep in LibTorch ("index out of range"): a
  // vocabulary of another size is refused here, naming both.
  const int64_t tokens = tokenizer_from_json(s.tokenizer)->vocab_size();
  if (tokens != s.shape.vocab_size) {
    throw ConfigError(flag + " " + path + " has a token embedding of " +
                      std::to_string(s.shape.vocab_size) + " rows, but the BPE vocabulary " +
                      vocab_used + " has " + std::to_string(tokens) +
                      " tokens: give the vocabulary it was trained with (--vocab)");
  }
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
