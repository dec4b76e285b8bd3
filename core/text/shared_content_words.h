#pragma once
// Content words two captions share, for the near-duplicate explorer: words as
// WordTokenizer::words splits them, minus a small fixed list of English stop words.
// Threading: a pure function.

#include <string>
#include <vector>

namespace hnclip {

// True for the fixed stop words ("a", "the", "of", "is", ...); expects a lower-cased word.
bool is_stop_word(const std::string& word);

// Words of `a` that also occur in `b`, stop words excluded, each once, in order of first
// appearance in `a`.
std::vector<std::string> shared_content_words(const std::string& a, const std::string& b);

}  // namespace hnclip
