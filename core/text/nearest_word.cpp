#include "text/nearest_word.h"

#include <algorithm>

namespace hnclip {
namespace {

// Optimal string alignment distance: Levenshtein plus a swap of two neighbours ("ephocs").
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// Whether `word` is one of the '_'-separated parts of `key`.
bool has_part(const std::string& key, const std::string& word) {
  if (word.empty()) return false;
  for (size_t start = 0;;) {
    const size_t end = key.find('_', start);
    if (key.compare(start, end == std::string::npos ? std::string::npos : end - start, word) == 0)
      return true;
    if (end == std::string::npos) return false;
    start = end + 1;
  }
}

}  // namespace

std::string nearest_word(const std::string& word, const std::vector<std::string>& choices) {
  std::string best;
  size_t best_distance = 0;
  bool tied = false;
  for (const auto& choice : choices) {
    const size_t d = edit_distance(word, choice);
    const size_t allowed = std::max<size_t>(1, std::max(word.size(), choice.size()) / 3);
    if (d > allowed) continue;
    if (best.empty() || d < best_distance) {
      best = choice;
      best_distance = d;
      tied = false;
    } else if (d == best_distance && choice != best) {
      tied = true;
    }
  }
  if (!best.empty()) return tied ? std::string() : best;
  // "gamma" for "loss_gamma": the word is one '_'-separated part of exactly one choice.
  for (const auto& choice : choices) {
    if (!has_part(choice, word)) continue;
    if (!best.empty()) return {};
    best = choice;
  }
  return best;
}

}  // namespace hnclip
