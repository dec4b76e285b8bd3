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
  if (display_width(s) <= width) return s;
  if (width == 0) return "";
  // Keep width − 1 characters: the cut falls before the byte that starts character width.
  size_t characters = 0, cut = 0;
  for (; cut < s.size(); ++cut) {
    if (starts_character(static_cast<unsigned char>(s[cut])) && characters++ == width - 1) break;
  }
  return s.substr(0, cut) + "…";
}

size_t column_width(const std::string& header, const std::vector<std::string>& cells,
                    size_t at_most) {
  size_t width = display_width(header);
  for (const auto& c : cells) width = std::max(width, display_width(c));
  return std::min(width, at_most);
}

}  // namespace hnclip
