#pragma once
// WordTokenizer: word-level tokenizer for the built-in synthetic benchmark, whose captions use a
// small closed vocabulary. Words are maximal runs of [a-z0-9] after ASCII lower-casing; everything
// else (punctuation, spaces) separates words and is dropped.
// Ids: 0 = pad, 1 = unknown word, 2.. = vocabulary words in vocabulary order, then start =
// vocab_size()-2 and end = vocab_size()-1, so the end token is the largest id (argmax pooling).
// Ownership/threading: an immutable value after construction; encode() is safe from any thread.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/tokenizer.h"

namespace hnclip {

class WordTokenizer : public Tokenizer {
 public:
  // Throws std::invalid_argument for context_length < 3 or a vocabulary entry that is empty,
  // duplicated, or not itself a single word of words().
  WordTokenizer(std::vector<std::string> vocab, int64_t context_length);

  // Vocabulary = every word seen at least min_count times in the captions, sorted by descending
  // count, ties alphabetically, so the same captions always give the same ids.
  static WordTokenizer build(const std::vector<std::string>& captions, int64_t context_length,
                             int64_t min_count = 1);

  // Rebuilds from to_json(); throws std::runtime_error naming the missing or malformed key.
  static WordTokenizer from_json(const nlohmann::json& j);

  // The word splitter used everywhere words of a caption are counted: lower-cased [a-z0-9] runs.
  static std::vector<std::string> words(const std::string& text);

  std::string kind() const override { return "word"; }
  int64_t vocab_size() const override;
  int64_t context_length() const override { return context_length_; }
  int64_t start_id() const override { return vocab_size() - 2; }
  int64_t end_id() const override { return vocab_size() - 1; }
  std::vector<int64_t> encode(const std::string& text) const override;
  nlohmann::json to_json() const override;

  const std::vector<std::string>& vocab() const { return vocab_; }
  // The words of `text` (as words() splits it, in order, repeats kept) that the vocabulary lacks:
  // encode() gives each the one unknown id, so a text of them carries no meaning.
  std::vector<std::string> unknown_words(const std::string& text) const;

 private:
  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int64_t> ids_;  // word -> token id
  int64_t context_length_;
};

}  // namespace hnclip
