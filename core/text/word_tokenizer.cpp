#include "text/word_tokenizer.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace hnclip {

namespace {

constexpr int64_t kPadId = 0;             // fills the row after the end token
constexpr int64_t kUnknownId = 1;         // any word not in the vocabulary
constexpr int64_t kFirstWordId = 2;       // id of vocab()[0]
constexpr int64_t kSpecialTokens = 4;     // pad, unknown, start, end
constexpr int64_t kMinContextLength = 3;  // start + one word + end

bool is_word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

WordTokenizer::WordTokenizer(std::vector<std::string> vocab, int64_t context_length)
    : vocab_(std::move(vocab)), context_length_(context_length) {
  if (context_length_ < kMinContextLength) {
    throw std::invalid_argument("WordTokenizer: context_length " + std::to_string(context_length_) +
                                " is below the minimum of " + std::to_string(kMinContextLength) +
                                " (start, one word, end)");
  }
  ids_.reserve(vocab_.size());
  for (size_t i = 0; i < vocab_.size(); ++i) {
    const auto& w = vocab_[i];
    const auto split = words(w);
    if (split.size() != 1 || split.front() != w) {
      throw std::invalid_argument("WordTokenizer: vocabulary entry " + std::to_string(i) + " \"" + w +
                                  "\" is not a single lower-case [a-z0-9] word");
    }
    if (!ids_.emplace(w, kFirstWordId + static_cast<int64_t>(i)).second) {
      throw std::invalid_argument("WordTokenizer: vocabulary entry " + std::to_string(i) + " \"" + w +
                                  "\" is a duplicate");
    }
  }
}

WordTokenizer WordTokenizer::build(const std::vector<std::string>& captions, int64_t context_length,
                                   int64_t min_count) {
  std::map<std::string, int64_t> counts;
  for (const auto& c : captions) {
    for (auto& w : words(c)) ++counts[std::move(w)];
  }
  std::vector<std::pair<std::string, int64_t>> sorted;
  for (auto& [w, n] : counts) {
    if (n >= min_count) sorted.emplace_back(w, n);
  }
  // std::map iteration is alphabetical, so a stable sort by count keeps ties alphabetical.
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> vocab;
  vocab.reserve(sorted.size());
  for (auto& [w, n] : sorted) vocab.push_back(std::move(w));
  return WordTokenizer(std::move(vocab), context_length);
}

WordTokenizer WordTokenizer::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("word tokenizer JSON: expected an object");
  auto require = [&](const char* key) -> const nlohmann::json& {
    auto it = j.find(key);
    if (it == j.end()) throw std::runtime_error(std::string("word tokenizer JSON: missing key \"") + key + "\"");
    return *it;
  };
  const auto& kind = require("kind");
  if (!kind.is_string() || kind.get<std::string>() != "word") {
    throw std::runtime_error("word tokenizer JSON: key \"kind\" must be \"word\", got " + kind.dump());
  }
  const auto& ctx = require("context_length");
  if (!ctx.is_number_integer()) {
    throw std::runtime_error("word tokenizer JSON: key \"context_length\" must be an integer, got " + ctx.dump());
  }
  const auto& vocab_json = require("vocab");
  if (!vocab_json.is_array()) {
    throw std::runtime_error("word tokenizer JSON: key \"vocab\" must be an array of strings");
  }
  std::vector<std::string> vocab;
  vocab.reserve(vocab_json.size());
  for (size_t i = 0; i < vocab_json.size(); ++i) {
    if (!vocab_json[i].is_string()) {
      throw std::runtime_error("word tokenizer JSON: key \"vocab\" entry " + std::to_string(i) +
                               " must be a string, got " + vocab_json[i].dump());
    }
    vocab.push_back(vocab_json[i].get<std::string>());
  }
  try {
    return WordTokenizer(std::move(vocab), ctx.get<int64_t>());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("word tokenizer JSON: key \"vocab\" or \"context_length\": ") + e.what());
  }
}

std::vector<std::string> WordTokenizer::words(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  for (char raw : text) {
    const char c = ascii_lower(raw);
    if (is_word_char(c)) {
      current.push_back(c);
    } else if (!current.empty()) {
      out.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

int64_t WordTokenizer::vocab_size() const { return static_cast<int64_t>(vocab_.size()) + kSpecialTokens; }

std::vector<std::string> WordTokenizer::unknown_words(const std::string& text) const {
  std::vector<std::string> out;
  for (auto& w : words(text))
    if (!ids_.count(w)) out.push_back(std::move(w));
  return out;
}

std::vector<int64_t> WordTokenizer::encode(const std::string& text) const {
  std::vector<int64_t> ids(static_cast<size_t>(context_length_), kPadId);
  const int64_t max_words = context_length_ - 2;  // room left by start and end
  ids[0] = start_id();
  int64_t n = 0;
  for (const auto& w : words(text)) {
    if (n == max_words) break;
    const auto it = ids_.find(w);
    ids[static_cast<size_t>(1 + n)] = it == ids_.end() ? kUnknownId : it->second;
    ++n;
  }
  ids[static_cast<size_t>(1 + n)] = end_id();
  return ids;
}

nlohmann::json WordTokenizer::to_json() const {
  return nlohmann::json{{"kind", kind()}, {"context_length", context_length_}, {"vocab", vocab_}};
}

}  // namespace hnclip
