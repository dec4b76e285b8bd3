#include "text/caption_sentences.h"

namespace hnclip {

std::vector<std::string> caption_sentences(const std::string& caption) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const auto end = caption.find(". ", start);
    if (end == std::string::npos) {
      if (start < caption.size()) out.push_back(caption.substr(start));
      return out;
    }
    if (end > start) out.push_back(caption.substr(start, end - start));
    start = end + 2;
  }
}

}  // namespace hnclip
