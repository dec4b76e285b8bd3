#include "widgets/common/shared_words_html.h"

#include <string>
#include <unordered_set>

#include "text/shared_content_words.h"

namespace hnclip::gui {
namespace {

// Dark text on amber reads in both the light and the dark palette.
constexpr const char* kSharedWordOpen = "<b style=\"background-color:#fde68a; color:#1f2937\">";
constexpr const char* kSharedWordClose = "</b>";

// The word characters of WordTokenizer::words (ASCII letters and digits); UTF-8 continuation
// bytes are never word characters, so a split never cuts a multi-byte character.
bool is_word_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace

QString shared_words_html(const QString& text, const QString& other) {
  const std::string a = text.toStdString();
  const auto shared_list = hnclip::shared_content_words(a, other.toStdString());
  const std::unordered_set<std::string> shared(shared_list.begin(), shared_list.end());
  QString out;
  out.reserve(text.size() + 64);
  size_t i = 0;
  while (i < a.size()) {
    size_t j = i;
    const bool word = is_word_byte(a[i]);
    while (j < a.size() && is_word_byte(a[j]) == word) ++j;
    const std::string piece = a.substr(i, j - i);
    const QString escaped = QString::fromStdString(piece).toHtmlEscaped();
    if (word && shared.count(lower(piece))) {
      out += QLatin1String(kSharedWordOpen) + escaped + QLatin1String(kSharedWordClose);
    } else {
      out += escaped;
    }
    i = j;
  }
  return out;
}

}  // namespace hnclip::gui
