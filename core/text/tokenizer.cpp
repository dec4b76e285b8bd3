#include "text/tokenizer.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "text/clip_bpe_tokenizer.h"
#include "text/word_tokenizer.h"

namespace hnclip {

std::unique_ptr<Tokenizer> tokenizer_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("tokenizer JSON: expected an object, got " + j.dump());
  const auto it = j.find("kind");
  if (it == j.end()) throw std::runtime_error("tokenizer JSON: missing key \"kind\"");
  if (!it->is_string()) throw std::runtime_error("tokenizer JSON: key \"kind\" must be a string, got " + it->dump());
  const auto kind = it->get<std::string>();
  if (kind == "word") return std::make_unique<WordTokenizer>(WordTokenizer::from_json(j));
  if (kind == "clip-bpe") return ClipBpeTokenizer::from_json(j);
  throw std::runtime_error("tokenizer JSON: unknown tokenizer kind \"" + kind + "\"");
}

}  // namespace hnclip
