#include "job/model_source.h"

#include <torch/torch.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "job/workbench_paths.h"
#include "model/clip_state_dict.h"
#include "model/pretrained_file.h"
#include "text/clip_bpe_tokenizer.h"
#include "text/hf_clip_tokenizer_files.h"
#include "text/tokenizer.h"
#include "train/checkpoint.h"
#include "train/train_config.h"

namespace hnclip {

namespace {
constexpr char kZipMagic[] = {'P', 'K', '\x03', '\x04'};

// Workbench checkpoints are zip archives; only those are asked whether they are ours (a folder or
// a safetensors file is not a PyTorch archive at all).
bool is_zip_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[sizeof(kZipMagic)] = {};
  return in.read(head, sizeof(head)) && std::memcmp(head, kZipMagic, sizeof(kZipMagic)) == 0;
}

void check_vocab_size(const nlohmann::json& tokenizer, const ClipConfig& shape,
                      const std::string& flag, const std::string& path, const std::string& what) {
  // Ids the embedding has no row for would fail deep in LibTorch ("index out of range"): a
  // vocabulary of another size is refused here, naming both.
  const int64_t tokens = tokenizer_from_json(tokenizer)->vocab_size();
  if (tokens != shape.vocab_size) {
    throw ConfigError(flag + " " + path + " has a token embedding of " +
                      std::to_string(shape.vocab_size) + " rows, but " + what + " has " + std::to_string(tokens) +
                      " tokens: give the vocabulary it was trained with (--vocab)");
  }
}
}  // namespace

bool is_workbench_model_file(const std::string& path) {
  return std::filesystem::is_regular_file(path) && is_zip_file(path) && is_workbench_checkpoint(path);
}

ModelSource open_model_source(const std::string& path, const std::string& vocab,
                              const std::string& flag, bool need_tokenizer, bool long_clip,
                              const std::string& activation) {
  ModelSource s;
  s.path = path;
  s.workbench = is_workbench_model_file(path);
  if (s.workbench && long_clip) {
    throw ConfigError("--long-clip stretches an OpenAI CLIP state dict, but " + flag + " " + path +
                      " is a workbench checkpoint");
  }
  if (s.workbench && !vocab.empty()) {
    throw ConfigError("--vocab " + vocab + ": " + flag + " " + path +
                      " is a workbench checkpoint, which carries its own tokenizer (--vocab is for "
                      "a CLIP model file)");
  }
  if (s.workbench) {
    const auto meta = read_checkpoint_meta(path);
    s.kind = "workbench";
    s.shape = meta.model;
    s.tokenizer = meta.tokenizer;
    if (!activation.empty() && parse_activation(activation, "--activation") != s.shape.activation) {
      throw ConfigError("--activation " + activation + ": " + flag + " " + path +
                        " is a workbench checkpoint trained with " +
                        activation_name(s.shape.activation));
    }
    return s;
  }
  // A CLIP file brings no tokenizer: check the vocabulary before reading (maybe gigabytes of)
  // weights. Every CLIP package ships the same file, and so does the workbench.
  const std::string vocab_used = vocab.empty() ? shipped_clip_vocab() : vocab;
  const bool have_vocab = std::filesystem::is_regular_file(vocab_used);
  if (!vocab.empty() && !have_vocab) throw ConfigError("--vocab " + vocab + ": no such file");

  auto file = read_pretrained_file(path, activation, flag);
  s.kind = pretrained_format_name(file.format);
  s.notes = file.notes;
  s.shape = file.shape;
  s.clip_weights = std::move(file.weights);
  if (long_clip) {
    s.clip_weights = long_clip_from_clip_state_dict(s.clip_weights, path);
    auto stretched = infer_clip_config(s.clip_weights, path);
    stretched.vision_heads = s.shape.vision_heads;
    stretched.text_heads = s.shape.text_heads;
    stretched.activation = s.shape.activation;
    s.shape = stretched;
  }
  if (!file.workbench_tokenizer.is_null()) {
    // The workbench's own hf or safetensors export of a run with a word tokenizer: that
    // tokenizer, exactly.
    s.tokenizer = file.workbench_tokenizer;
    if (long_clip) throw ConfigError("--long-clip: " + path + " carries a word tokenizer, not CLIP's");
    check_vocab_size(s.tokenizer, s.shape, flag, path, "its recorded word tokenizer");
    return s;
  }
  if (!have_vocab && (need_tokenizer || !file.hf_vocab_json.empty())) {
    throw ConfigError(flag + " " + path + " is a " + s.kind +
                      " CLIP model and the shipped BPE vocabulary " + vocab_used +
                      " is missing: give one with --vocab PATH");
  }
  // Images alone need no tokenizer: the shipped vocabulary is not forced on a file it may not fit.
  if (!have_vocab || (!need_tokenizer && vocab.empty() && file.hf_vocab_json.empty())) return s;
  s.tokenizer = {
      {"kind", "clip-bpe"}, {"vocab_path", vocab_used}, {"context_length", s.shape.context_length}};
  if (!file.hf_vocab_json.empty()) {
    // transformers' files must be CLIP's vocabulary, which is what the workbench tokenizes with.
    try {
      check_hf_clip_tokenizer_files(file.hf_vocab_json, file.hf_merges_txt,
                                    ClipBpeTokenizer(vocab_used, s.shape.context_length));
    } catch (const std::runtime_error& e) {
      throw ConfigError(flag + " " + path + ": its tokenizer is not CLIP's BPE (" + e.what() + ")");
    }
    s.notes.push_back(flag + " " + path + ": vocab.json and merges.txt are CLIP's BPE vocabulary; " +
                      "tokenized with " + vocab_used);
  } else if (vocab.empty()) {
    s.notes.push_back(flag + " " + path + ": tokenized with the shipped CLIP BPE vocabulary " +
                      vocab_used + " (--vocab names another)");
  }
  check_vocab_size(s.tokenizer, s.shape, flag, path, "the BPE vocabulary " + vocab_used);
  return s;
}

void load_model_source_weights(ModelSource& source, ClipModel& model) {
  if (source.workbench) {
    load_checkpoint_weights(source.path, model);
  } else {
    load_clip_state_dict(model, std::move(source.clip_weights), source.path);
    source.clip_weights.clear();
  }
}

}  // namespace hnclip
