#include "text/terminal_column.h"

#include <algorithm>

namespace hnclip {
namespace {

bool starts_character(unsigned char byte) { return (byte & 0xC0) != 0x80; }

}  // namespace

size_t display_width(const std::string& utf8) {
  size_t n = 0;
  for (unsigned char c : utf8) n += starts_character(c);
  return n;
}

std::string pad_column(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return w >= width ? s + " " : s + std::string(width - w, ' ');
}

std::string fit_column(const std::string& s, size_t width) {
  const size_t characters = display_width(s);
  if (characters <= width) return s;
  if (width == 0) return "";
  const size_t tail = (width - 1) / 2, head = width - 1 - tail;
  // Byte offsets of the character that starts at index head and of the tail's first character.
  size_t index = 0, head_end = s.size(), tail_start = s.size();
  for (size_t byte = 0; byte < s.size(); ++byte) {
    if (!starts_character(static_cast<unsigned char>(s[byte]))) continue;
    if (index == head) head_end = byte;
    if (index == characters - tail) tail_start = byte;
    ++index;
  }
  return s.substr(0, head_end) + "…" + s.substr(tail_start);
}

size_t column_width(const std::string& header, const std::vector<std::string>& cells,
                    size_t at_most) {
  size_t width = display_width(header);
  for (const auto& c : cells) width = std::max(width, display_width(c));
  return std::min(width, at_most);
}

}  // namespace hnclip
