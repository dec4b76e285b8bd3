#include "text/unicode_text.h"

#include <algorithm>
#include <cstdint>

namespace hnclip {

namespace {

struct CodePointRange {
  char32_t first, last;
};
struct CodePointPair {
  char32_t from, to;
};

#include "text/unicode_tables.inc"

constexpr char32_t kReplacement = 0xFFFD;     // what an undecodable byte becomes
constexpr char32_t kMaxCodePoint = 0x10FFFF;  // last Unicode scalar value
constexpr char32_t kCapitalIWithDot = 0x130;  // the one code point whose lower case is two
constexpr char32_t kCombiningDotAbove = 0x307;

template <size_t N>
bool in_ranges(const CodePointRange (&ranges)[N], char32_t cp) {
  // First range whose last >= cp; cp is inside it if first <= cp.
  const auto it = std::lower_bound(std::begin(ranges), std::end(ranges), cp,
                                   [](const CodePointRange& r, char32_t c) { return r.last < c; });
  return it != std::end(ranges) && it->first <= cp;
}

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

}  // namespace

std::u32string utf8_decode(const std::string& text) {
  std::u32string out;
  out.reserve(text.size());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    if (b0 < 0x80) {
      out.push_back(b0);
      ++i;
      continue;
    }
    size_t len = 0;
    char32_t cp = 0, min_cp = 0;
    if ((b0 & 0xE0) == 0xC0) {
      len = 2, cp = b0 & 0x1F, min_cp = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
      len = 3, cp = b0 & 0x0F, min_cp = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
      len = 4, cp = b0 & 0x07, min_cp = 0x10000;
    }
    bool ok = len != 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      ok = is_continuation(b);
      cp = (cp << 6) | (b & 0x3F);
    }
    ok = ok && cp >= min_cp && cp <= kMaxCodePoint && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (ok) {
      out.push_back(cp);
      i += len;
    } else {
      out.push_back(kReplacement);
      ++i;
    }
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string utf8_encode(const std::u32string& text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t cp : text) append_utf8(out, cp);
  return out;
}

bool is_unicode_letter(char32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  return in_ranges(kLetterRanges, cp);
}

bool is_unicode_number(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return in_ranges(kNumberRanges, cp);
}

bool is_unicode_space(char32_t cp) {
  if (cp < 0x80) return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

std::u32string unicode_lower(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t cp : text) {
    if (cp < 0x80) {
      out.push_back(cp >= 'A' && cp <= 'Z' ? cp + ('a' - 'A') : cp);
    } else if (cp == kCapitalIWithDot) {
      out.push_back('i');
      out.push_back(kCombiningDotAbove);
    } else {
      const auto it = std::lower_bound(std::begin(kLowerCase), std::end(kLowerCase), cp,
                                       [](const CodePointPair& p, char32_t c) { return p.from < c; });
      out.push_back(it != std::end(kLowerCase) && it->from == cp ? it->to : cp);
    }
  }
  return out;
}

}  // namespace hnclip
