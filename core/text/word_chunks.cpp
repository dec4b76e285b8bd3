#include "text/word_chunks.h"

#include <algorithm>
#include <stdexcept>

#include "text/word_diff.h"

namespace hnclip {

std::vector<std::string> word_chunks(const std::string& text, int64_t words_per_chunk) {
  if (words_per_chunk < 1) {
    throw std::invalid_argument("word_chunks: words_per_chunk must be >= 1, got " +
                                std::to_string(words_per_chunk));
  }
  const auto words = text_words(text);
  const auto n = static_cast<size_t>(words_per_chunk);
  std::vector<std::string> chunks;
  for (size_t first = 0; first < words.size(); first += n) {
    const size_t last = std::min(first + n, words.size()) - 1;
    chunks.push_back(text.substr(words[first].begin, words[last].end - words[first].begin));
  }
  return chunks;
}

}  // namespace hnclip
