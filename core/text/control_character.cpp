#include "text/control_character.h"

#include <cstdio>

#include "text/unicode_text.h"

namespace hnclip {

std::string control_character_in(const std::string& text) {
  for (const char32_t c : utf8_decode(text)) {
    if (c == U'\n' || c == U'\r' || c == 0x2028 || c == 0x2029) return "a line break";
    if (c == U'\t') return "a tab";
    if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "control character U+%04X", static_cast<unsigned>(c));
      return buf;
    }
  }
  return "";
}

std::string one_line(const std::string& text) {
  if (control_character_in(text).empty()) return text;
  std::u32string out;
  for (const char32_t c : utf8_decode(text))
    out += (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029) ? U' ' : c;
  return utf8_encode(out);
}

}  // namespace hnclip
