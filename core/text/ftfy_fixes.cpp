#include "text/ftfy_fixes.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "text/html_unescape.h"
#include "text/unicode_text.h"

namespace hnclip {

namespace {

constexpr char32_t kEsc = 0x1B;
constexpr char32_t kC1First = 0x80, kC1Last = 0x9F;
constexpr char32_t kWidthFirst = 0xFF01, kWidthLast = 0xFFEF;  // ftfy: range(0xFF01, 0xFFF0)
constexpr char32_t kIdeographicSpace = 0x3000;
constexpr size_t kMaxEntityName = 24;  // ftfy's HTML_ENTITY_RE: &#?[0-9A-Za-z]{1,24};

// sloppy-windows-1252 of bytes 0x80-0x9F; 0 = undefined in cp1252, ftfy keeps the Latin-1 char.
constexpr char32_t kCp1252High[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

const std::unordered_map<char32_t, std::u32string>& ligatures() {
  static const std::unordered_map<char32_t, std::u32string> table = {
      {0x0132, U"IJ"},         {0x0133, U"ij"},         {0x0149, U"\u02BCn"},
      {0x01F1, U"DZ"},         {0x01F2, U"Dz"},         {0x01F3, U"dz"},
      {0x01C4, U"D\u017D"},    {0x01C5, U"D\u017E"},    {0x01C6, U"d\u017E"},
      {0x01C7, U"LJ"},         {0x01C8, U"Lj"},         {0x01C9, U"lj"},
      {0x01CA, U"NJ"},         {0x01CB, U"Nj"},         {0x01CC, U"nj"},
      {0xFB00, U"ff"},         {0xFB01, U"fi"},         {0xFB02, U"fl"},
      {0xFB03, U"ffi"},        {0xFB04, U"ffl"},        {0xFB05, U"\u017Ft"},
      {0xFB06, U"st"}};
  return table;
}

std::string utf8proc_map_or_throw(const std::string& text, int options, const char* what) {
  utf8proc_uint8_t* out = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                              static_cast<utf8proc_ssize_t>(text.size()), &out,
                              static_cast<utf8proc_option_t>(options));
  if (n < 0) {
    throw std::runtime_error(std::string("utf8proc ") + what + ": " + utf8proc_errmsg(n));
  }
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(out, &std::free);
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

// ftfy's WIDTH_MAP: built from NFKC of each character once, as ftfy builds it at import.
const std::unordered_map<char32_t, std::u32string>& width_map() {
  static const std::unordered_map<char32_t, std::u32string> table = [] {
    std::unordered_map<char32_t, std::u32string> m{{kIdeographicSpace, U" "}};
    for (char32_t cp = kWidthFirst; cp <= kWidthLast; ++cp) {
      std::string one;
      append_utf8(one, cp);
      const auto nfkc = utf8_decode(utf8proc_map_or_throw(
          one, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT, "NFKC"));
      if (nfkc != std::u32string(1, cp)) m.emplace(cp, nfkc);
    }
    return m;
  }();
  return table;
}

bool is_removed_control(char32_t c) {
  return c <= 0x08 || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F ||
         (c >= 0x206A && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFC);
}

bool is_ascii_alnum(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
bool is_ascii_letter(char32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// The text with `map(c, out)` called for each code point c: it appends c's replacement.
template <typename F>
std::u32string map_chars(const std::u32string& in, F&& map) {
  std::u32string out;
  out.reserve(in.size());
  for (char32_t c : in) map(c, out);
  return out;
}

std::u32string unescape_html_entities(const std::u32string& s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '&') {
      size_t j = i + 1;
      if (j < s.size() && s[j] == '#') ++j;
      const size_t name_start = j;
      while (j < s.size() && j - name_start < kMaxEntityName && is_ascii_alnum(s[j])) ++j;
      if (j > name_start && j < s.size() && s[j] == ';') {
        const std::u32string match = s.substr(i, j + 1 - i);
        const std::u32string decoded = utf8_decode(html_unescape(utf8_encode(match)));
        out += decoded.find(U';') == std::u32string::npos ? decoded : match;
        i = j + 1;
        continue;
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

std::u32string fix_line_breaks(const std::u32string& s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char32_t c = s[i];
    if (c == '\r') {
      if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
      out.push_back('\n');
    } else if (c == 0x2028 || c == 0x2029 || c == 0x85) {
      out.push_back('\n');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::u32string remove_terminal_escapes(const std::u32string& s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == kEsc && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
      if (j < s.size() && is_ascii_letter(s[j])) {
        i = j;  // the whole sequence, its final letter included
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// One pass of ftfy's fix_and_explain loop body over one segment.
std::u32string fix_pass(const std::u32string& in, bool unescape, FtfyFixReport& r) {
  auto step = [](std::u32string next, std::u32string& cur, bool& flag) {
    if (next != cur) flag = true;
    cur = std::move(next);
  };
  std::u32string t = in;
  if (unescape) step(unescape_html_entities(t), t, r.html);
  step(map_chars(t,
                 [](char32_t c, std::u32string& o) {
                   const bool c1 = c >= kC1First && c <= kC1Last;
                   const char32_t w = c1 ? kCp1252High[c - kC1First] : 0;
                   o.push_back(w != 0 ? w : c);
                 }),
       t, r.c1_controls);
  step(map_chars(t,
                 [](char32_t c, std::u32string& o) {
                   const auto it = ligatures().find(c);
                   if (it == ligatures().end()) return o.push_back(c);
                   o += it->second;
                 }),
       t, r.ligatures);
  step(map_chars(t,
                 [](char32_t c, std::u32string& o) {
                   if (c != kIdeographicSpace && (c < kWidthFirst || c > kWidthLast)) {
                     return o.push_back(c);
                   }
                   const auto it = width_map().find(c);
                   if (it == width_map().end()) return o.push_back(c);
                   o += it->second;
                 }),
       t, r.width);
  step(map_chars(t,
                 [](char32_t c, std::u32string& o) {
                   if (c == 0x02BC || (c >= 0x2018 && c <= 0x201B)) return o.push_back('\'');
                   if (c >= 0x201C && c <= 0x201F) return o.push_back('"');
                   o.push_back(c);
                 }),
       t, r.quotes);
  step(fix_line_breaks(t), t, r.line_breaks);
  step(remove_terminal_escapes(t), t, r.terminal_escapes);
  step(map_chars(t,
                 [](char32_t c, std::u32string& o) {
                   if (!is_removed_control(c)) o.push_back(c);
                 }),
       t, r.control_chars);
  step(utf8_decode(utf8proc_nfc(utf8_encode(t))), t, r.nfc);
  return t;
}

}  // namespace

std::string utf8proc_nfc(const std::string& text) {
  return utf8proc_map_or_throw(text, UTF8PROC_STABLE | UTF8PROC_COMPOSE, "NFC");
}

std::string ftfy_fix_text(const std::string& text, FtfyFixReport* report) {
  FtfyFixReport local;
  FtfyFixReport& r = report ? *report : local;
  r = FtfyFixReport{};
  const std::u32string all = utf8_decode(text);
  std::u32string out;
  out.reserve(all.size());
  // ftfy fixes each line (up to and including its "\n") on its own. "auto" HTML unescaping stops
  // at the first line with a '<' and stays off for the lines after it (ftfy replaces its config).
  bool unescape = true;
  for (size_t pos = 0; pos < all.size();) {
    const size_t nl = all.find(U'\n', pos);
    const size_t end = nl == std::u32string::npos ? all.size() : nl + 1;
    std::u32string segment = all.substr(pos, end - pos);
    if (segment.find(U'<') != std::u32string::npos) unescape = false;
    for (;;) {
      std::u32string fixed = fix_pass(segment, unescape, r);
      if (fixed == segment) break;
      segment = std::move(fixed);
    }
    out += segment;
    pos = end;
  }
  return utf8_encode(out);
}

}  // namespace hnclip
