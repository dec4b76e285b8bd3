#include "text/html_unescape.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "text/unicode_text.h"

namespace hnclip {

namespace {

struct HtmlEntity {
  const char* name;
  const char* text;
};

#include "text/html_entities.inc"

constexpr size_t kMaxNameChars = 32;           // html.unescape looks at most this many characters
constexpr size_t kMinPrefixChars = 2;          // shortest legacy name tried as a prefix
constexpr char32_t kReplacement = 0xFFFD;      // for 0, surrogates and out-of-range numbers
constexpr unsigned long kTooLarge = 0x110000;  // numbers saturate here while parsing

// Windows-1252 meaning of the C1 range, as the HTML standard (and Python) reads &#128;..&#159;.
constexpr char32_t kWindows1252C1[32] = {
    0x20AC, 0x81,   0x201A, 0x192,  0x201E, 0x2026, 0x2020, 0x2021, 0x2C6,  0x2030, 0x160,
    0x2039, 0x152,  0x8D,   0x17D,  0x8F,   0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x2DC,  0x2122, 0x161,  0x203A, 0x153,  0x9D,   0x17E,  0x178};

const HtmlEntity* find_entity(std::string_view name) {
  const auto it = std::lower_bound(std::begin(kHtmlEntities), std::end(kHtmlEntities), name,
                                   [](const HtmlEntity& e, std::string_view n) { return std::string_view(e.name) < n; });
  return it != std::end(kHtmlEntities) && name == it->name ? it : nullptr;
}

// html.unescape's text for the numeric reference `num`.
void append_numeric(std::string& out, unsigned long num) {
  if (num == 0) return append_utf8(out, kReplacement);
  if (num == 0x0D) return out.push_back('\r');
  if (num >= 0x80 && num <= 0x9F) return append_utf8(out, kWindows1252C1[num - 0x80]);
  if ((num >= 0xD800 && num <= 0xDFFF) || num >= kTooLarge) return append_utf8(out, kReplacement);
  const bool control = (num >= 0x1 && num <= 0x8) || num == 0xB || (num >= 0xE && num <= 0x1F) || num == 0x7F;
  const bool noncharacter = (num >= 0xFDD0 && num <= 0xFDEF) || (num & 0xFFFE) == 0xFFFE;
  if (control || noncharacter) return;
  append_utf8(out, static_cast<char32_t>(num));
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }
bool ends_name(char c) {
  return c == '\t' || c == '\n' || c == '\f' || c == ' ' || c == '<' || c == '&' || c == '#' || c == ';';
}
bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string html_unescape(const std::string& text) {
  if (text.find('&') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    if (text[i] != '&') {
      out.push_back(text[i++]);
      continue;
    }
    size_t j = i + 1;  // first byte after '&'
    if (j < n && text[j] == '#') {
      const bool hex = j + 1 < n && (text[j + 1] == 'x' || text[j + 1] == 'X');
      size_t k = j + (hex ? 2 : 1);
      unsigned long num = 0;
      const size_t digits_start = k;
      while (k < n && (hex ? is_hex(text[k]) : (text[k] >= '0' && text[k] <= '9'))) {
        num = std::min(kTooLarge, num * (hex ? 16 : 10) + static_cast<unsigned long>(hex_value(text[k])));
        ++k;
      }
      if (k == digits_start) {  // "&#" or "&#x" without digits is no reference
        out.push_back('&');
        i = j;
        continue;
      }
      if (k < n && text[k] == ';') ++k;
      append_numeric(out, num);
      i = k;
      continue;
    }
    // Named: up to 32 characters that cannot end a name, then an optional ';'.
    size_t k = j, chars = 0, ascii_chars = 0;
    bool all_ascii = true;
    while (k < n && !ends_name(text[k])) {
      if (!is_utf8_continuation(text[k])) {
        if (chars == kMaxNameChars) break;
        ++chars;
        all_ascii = all_ascii && static_cast<unsigned char>(text[k]) < 0x80;
        if (all_ascii) ++ascii_chars;
      }
      ++k;
    }
    if (chars == 0) {
      out.push_back('&');
      i = j;
      continue;
    }
    if (k < n && text[k] == ';') ++k;
    const std::string_view name(text.data() + j, k - j);
    if (const auto* e = find_entity(name)) {
      out += e->text;
      i = k;
      continue;
    }
    // The longest known name at the start (shorter than the whole); names are ASCII, so only
    // the ASCII head can hold one. Characters count as bytes there.
    const size_t whole_chars = chars + (name.back() == ';' ? 1 : 0);
    bool replaced = false;
    for (size_t x = std::min(ascii_chars, whole_chars - 1); x >= kMinPrefixChars && !replaced; --x) {
      if (const auto* e = find_entity(name.substr(0, x))) {
        out += e->text;
        out.append(name.substr(x));
        replaced = true;
      }
    }
    if (!replaced) {
      out.push_back('&');
      out.append(name);
    }
    i = k;
  }
  return out;
}

}  // namespace hnclip
