#include "text/caption_sentences.h"

namespace hnclip {

std::vector<std::pair<size_t, size_t>> caption_sentence_ranges(const std::string& caption) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = 0;
  while (true) {
    const auto end = caption.find(". ", start);
    if (end == std::string::npos) {
      if (start < caption.size()) out.emplace_back(start, caption.size());
      return out;
    }
    if (end > start) out.emplace_back(start, end);
    start = end + 2;
  }
}

std::vector<std::string> caption_sentences(const std::string& caption) {
  std::vector<std::string> out;
  for (const auto& [begin, end] : caption_sentence_ranges(caption))
    out.push_back(caption.substr(begin, end - begin));
  return out;
}

}  // namespace hnclip
