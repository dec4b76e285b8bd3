#pragma once
// StructXLIP's caption chunks: a sentence cut into consecutive word n-grams, which its local term
// matches to the edge segments of the object the sentence describes (loss/structxlip_loss.h).
// Words are text_words() of text/word_diff.h (runs of letters and digits); a chunk is the text
// from its first word's first byte to its last word's last byte, so what lies between its words
// ("off-white", "3.5 cm") is kept as written and what lies between chunks is dropped.
// Threading: a pure function.

#include <cstdint>
#include <string>
#include <vector>

namespace hnclip {

// `text` cut into chunks of `words_per_chunk` consecutive words, in order, not overlapping; the
// last chunk holds the words left over (fewer when the count does not divide). No words, no
// chunks. Throws std::invalid_argument for words_per_chunk < 1.
std::vector<std::string> word_chunks(const std::string& text, int64_t words_per_chunk);

}  // namespace hnclip
