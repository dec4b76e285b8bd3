#include "text/shared_content_words.h"

#include <unordered_set>

#include "text/word_tokenizer.h"

namespace hnclip {

namespace {
// Function words that every caption shares; they say nothing about what makes two alike.
const std::unordered_set<std::string>& stop_words() {
  static const std::unordered_set<std::string> words = {
      "a",    "an",   "the",   "and",  "or",   "but",  "of",    "in",    "on",   "at",   "to",
      "for",  "from", "with",  "by",   "as",   "is",   "are",   "was",   "were", "be",   "been",
      "it",   "its",  "this",  "that", "these", "those", "there", "here", "which", "who", "has",
      "have", "had",  "not",   "no",   "into", "onto", "over",  "under", "than", "then", "also",
      "each", "one",  "some",  "very", "while", "where", "their", "they",  "them", "he",   "she",
      "his",  "her",  "we",    "you",  "i",    "so",   "do",    "does",  "can",  "will", "up"};
  return words;
}
}  // namespace

bool is_stop_word(const std::string& word) { return stop_words().count(word) > 0; }

std::vector<std::string> shared_content_words(const std::string& a, const std::string& b) {
  const auto b_words = WordTokenizer::words(b);
  const std::unordered_set<std::string> in_b(b_words.begin(), b_words.end());
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& w : WordTokenizer::words(a)) {
    if (is_stop_word(w) || !in_b.count(w) || !seen.insert(w).second) continue;
    out.push_back(w);
  }
  return out;
}

}  // namespace hnclip
