#pragma once
// Tokenizer: turns a caption into a fixed-length row of token ids for the text tower.
// Implementations: WordTokenizer (built-in benchmark) and ClipBpeTokenizer (OpenAI CLIP's BPE).
// Thread-safety: encode() is const and must be safe to call from several loader threads at once.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace hnclip {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // "word" or "clip-bpe": stored in checkpoints so a model is always paired with its tokenizer.
  virtual std::string kind() const = 0;
  virtual int64_t vocab_size() const = 0;
  virtual int64_t context_length() const = 0;
  virtual int64_t start_id() const = 0;
  virtual int64_t end_id() const = 0;
  // Pad id is always 0. The end id is the largest id in use, so the text tower may pool at
  // argmax(token ids) exactly like OpenAI CLIP.

  // [start, tokens..., end, 0, 0, ...] of exactly context_length() ids. Too-long text is
  // truncated so that the last id is still the end token.
  virtual std::vector<int64_t> encode(const std::string& text) const = 0;

  // Everything needed to rebuild an identical tokenizer (vocabulary, context length).
  virtual nlohmann::json to_json() const = 0;
};

// Rebuilds a tokenizer written by to_json(); throws std::runtime_error naming the bad key.
std::unique_ptr<Tokenizer> tokenizer_from_json(const nlohmann::json& j);

}  // namespace hnclip
