#pragma once
// A word-level diff of two captions, for showing what tells near-twins apart (the built-in
// benchmark's captions differ in a few words of a long shared text). Words are maximal runs of
// ASCII letters and digits and of non-ASCII bytes (so a UTF-8 character is never cut); they are
// compared case-insensitively (ASCII), and punctuation and spacing between them never count as a
// difference. The edit script is a longest common subsequence of the two word sequences.
// Threading: pure functions.

#include <cstddef>
#include <string>
#include <vector>

namespace hnclip {

// One word of a text: bytes [begin, end) of it, and the lower-cased word it is compared as.
struct TextWord {
  size_t begin = 0;
  size_t end = 0;
  std::string key;
};

// The words of `text`, in order.
std::vector<TextWord> text_words(const std::string& text);

struct WordDiffOp {
  enum Kind { kSame, kRemoved, kAdded };
  Kind kind = kSame;
  size_t a = 0;  // index into WordDiff::a (kSame, kRemoved)
  size_t b = 0;  // index into WordDiff::b (kSame, kAdded)
};

// How `b` differs from `a`: `ops` walks both word lists in order (every word of each exactly
// once); where words were replaced, the removed ones come before the added ones.
struct WordDiff {
  std::vector<TextWord> a, b;
  std::vector<WordDiffOp> ops;

  // Per word of `a` (of `b`): true when the word is not in the common subsequence.
  std::vector<bool> a_differs() const;
  std::vector<bool> b_differs() const;
  bool identical() const;  // same words in the same order (case and punctuation aside)
};

WordDiff word_diff(const std::string& a, const std::string& b);

// Byte offset in `text` of its first word that is not the word at the same position of `other`;
// text.size() when every word of `text` is (so `text` adds nothing after the shared words).
size_t first_differing_word(const std::string& text, const std::string& other);

// How many leading words every one of `texts` has in common (0 for fewer than two texts).
size_t common_leading_words(const std::vector<std::string>& texts);

}  // namespace hnclip
