#include "text/word_diff.h"

#include <algorithm>
#include <cstdint>

namespace hnclip {
namespace {

// Above this many LCS table cells (after the shared head and tail are trimmed) the middles are
// reported as wholly replaced: two captions that differ that much are not near-twins, and the
// table would cost more memory than the view is worth.
constexpr size_t kMaxTableCells = size_t{4} << 20;

bool is_word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::vector<TextWord> text_words(const std::string& text) {
  std::vector<TextWord> words;
  size_t i = 0;
  while (i < text.size()) {
    if (!is_word_byte(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    TextWord w;
    w.begin = i;
    while (i < text.size() && is_word_byte(static_cast<unsigned char>(text[i])))
      w.key += ascii_lower(text[i++]);
    w.end = i;
    words.push_back(std::move(w));
  }
  return words;
}

std::vector<bool> WordDiff::a_differs() const {
  std::vector<bool> out(a.size(), false);
  for (const auto& op : ops)
    if (op.kind == WordDiffOp::kRemoved) out[op.a] = true;
  return out;
}

std::vector<bool> WordDiff::b_differs() const {
  std::vector<bool> out(b.size(), false);
  for (const auto& op : ops)
    if (op.kind == WordDiffOp::kAdded) out[op.b] = true;
  return out;
}

bool WordDiff::identical() const {
  return std::all_of(ops.begin(), ops.end(),
                     [](const WordDiffOp& op) { return op.kind == WordDiffOp::kSame; });
}

WordDiff word_diff(const std::string& a, const std::string& b) {
  WordDiff d;
  d.a = text_words(a);
  d.b = text_words(b);
  const size_t n = d.a.size(), m = d.b.size();
  size_t head = 0;
  while (head < n && head < m && d.a[head].key == d.b[head].key) ++head;
  size_t tail = 0;
  while (tail < n - head && tail < m - head && d.a[n - 1 - tail].key == d.b[m - 1 - tail].key)
    ++tail;
  for (size_t i = 0; i < head; ++i) d.ops.push_back({WordDiffOp::kSame, i, i});

  // The middles: a[head, n - tail) against b[head, m - tail).
  const size_t rows = n - head - tail, cols = m - head - tail;
  std::vector<WordDiffOp> middle;
  if (rows > 0 && cols > 0 && (rows + 1) * (cols + 1) <= kMaxTableCells) {
    // lcs[i][j]: LCS length of a's middle from i on and b's middle from j on.
    std::vector<uint32_t> lcs((rows + 1) * (cols + 1), 0);
    const auto at = [cols](size_t i, size_t j) { return i * (cols + 1) + j; };
    for (size_t i = rows; i-- > 0;) {
      for (size_t j = cols; j-- > 0;) {
        lcs[at(i, j)] = d.a[head + i].key == d.b[head + j].key
                            ? lcs[at(i + 1, j + 1)] + 1
                            : std::max(lcs[at(i + 1, j)], lcs[at(i, j + 1)]);
      }
    }
    size_t i = 0, j = 0;
    while (i < rows || j < cols) {
      if (i < rows && j < cols && d.a[head + i].key == d.b[head + j].key) {
        middle.push_back({WordDiffOp::kSame, head + i, head + j});
        ++i;
        ++j;
      } else if (j == cols || (i < rows && lcs[at(i + 1, j)] >= lcs[at(i, j + 1)])) {
        middle.push_back({WordDiffOp::kRemoved, head + i, head + j});  // removals first
        ++i;
      } else {
        middle.push_back({WordDiffOp::kAdded, head + i, head + j});
        ++j;
      }
    }
  } else {
    for (size_t i = 0; i < rows; ++i) middle.push_back({WordDiffOp::kRemoved, head + i, head});
    for (size_t j = 0; j < cols; ++j) middle.push_back({WordDiffOp::kAdded, head + rows, head + j});
  }
  d.ops.insert(d.ops.end(), middle.begin(), middle.end());
  for (size_t k = tail; k-- > 0;) d.ops.push_back({WordDiffOp::kSame, n - 1 - k, m - 1 - k});
  return d;
}

size_t first_differing_word(const std::string& text, const std::string& other) {
  const auto words = text_words(text);
  const auto others = text_words(other);
  for (size_t i = 0; i < words.size(); ++i)
    if (i >= others.size() || words[i].key != others[i].key) return words[i].begin;
  return text.size();
}

size_t common_leading_words(const std::vector<std::string>& texts) {
  if (texts.size() < 2) return 0;
  const auto first = text_words(texts.front());
  size_t shared = first.size();
  for (size_t t = 1; t < texts.size() && shared > 0; ++t) {
    const auto words = text_words(texts[t]);
    size_t k = 0;
    while (k < shared && k < words.size() && words[k].key == first[k].key) ++k;
    shared = k;
  }
  return shared;
}

}  // namespace hnclip
