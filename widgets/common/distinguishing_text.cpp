#include "widgets/common/distinguishing_text.h"

#include "text/word_diff.h"

namespace hnclip::gui {

QString text_from_word(const std::string& text, size_t start) {
  if (start == 0 || start >= text.size()) return QString::fromStdString(text);
  return QChar(0x2026) + QString::fromStdString(text.substr(start));
}

std::vector<QString> distinguishing_texts(const std::vector<std::string>& captions,
                                          const std::vector<int64_t>& nearest) {
  const size_t shared = hnclip::common_leading_words(captions);
  std::vector<QString> out;
  out.reserve(captions.size());
  for (size_t i = 0; i < captions.size(); ++i) {
    const std::string& text = captions[i];
    size_t start = text.size();
    const int64_t n = i < nearest.size() ? nearest[i] : -1;
    if (n >= 0 && static_cast<size_t>(n) < captions.size() && static_cast<size_t>(n) != i)
      start = hnclip::first_differing_word(text, captions[static_cast<size_t>(n)]);
    if (start >= text.size()) {  // no neighbour known, or nothing after the words it shares
      const auto words = hnclip::text_words(text);
      start = shared < words.size() ? words[shared].begin : 0;
    }
    out.push_back(text_from_word(text, start));
  }
  return out;
}

}  // namespace hnclip::gui
