#include "text/structure_word_list.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include <utf8proc.h>

#include "text/unicode_text.h"

namespace hnclip {

namespace {
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";  // some editors start a UTF-8 file with it
constexpr char32_t kRightSingleQuote = 0x2019;  // the apostrophe of typeset text ("navy’s")
constexpr char kCommentStart = '#';
constexpr const char* kWhat = "cannot read the structure word list";
constexpr size_t kNone = static_cast<size_t>(-1);

// The code point starting at byte `i`: its length in bytes, or 0 where the bytes there are not
// UTF-8. utf8proc's decoder refuses overlong forms, surrogates and stray continuation bytes, which
// unicode_text's utf8_decode quietly turns into U+FFFD (no good for telling the user where).
size_t code_point_at(std::string_view s, size_t i, char32_t* cp) {
  utf8proc_int32_t c = 0;
  const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                  static_cast<utf8proc_ssize_t>(s.size() - i), &c);
  if (n <= 0) return 0;
  *cp = static_cast<char32_t>(c);
  return static_cast<size_t>(n);
}

bool is_word_char(char32_t cp) { return is_unicode_letter(cp) || is_unicode_number(cp); }
bool is_joiner(char32_t cp) { return cp == '-' || cp == '\'' || cp == kRightSingleQuote; }
bool is_stop(char c) { return c == '.' || c == '!' || c == '?'; }
bool is_separator(char c) { return c == ',' || c == ';' || c == ':'; }

std::string column_of(size_t byte) { return "column " + std::to_string(byte + 1); }

// A character for a message: itself when it is printable ASCII, else its code point.
std::string describe(char32_t cp) {
  char buf[16];
  if (cp > 0x20 && cp < 0x7f) {
    std::snprintf(buf, sizeof buf, "'%c'", static_cast<char>(cp));
  } else {
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  }
  return buf;
}

// "not UTF-8 (byte 0xff at column 7)" for the first byte that does not decode, or "".
std::string utf8_problem(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const size_t n = code_point_at(s, i, &cp);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x",
                    static_cast<unsigned>(static_cast<unsigned char>(s[i])));
      return std::string("not UTF-8 (byte ") + hex + " at " + column_of(i) + ")";
    }
    i += n;
  }
  return "";
}

struct CodePoint {
  char32_t cp;
  size_t at;  // byte offset
};

// Decodes text that utf8_problem() accepted.
std::vector<CodePoint> code_points(std::string_view s) {
  std::vector<CodePoint> cps;
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const size_t n = std::max<size_t>(code_point_at(s, i, &cp), 1);
    cps.push_back({cp, i});
    i += n;
  }
  return cps;
}

// What is wrong with an entry's text (a line without its comment), or "" when nothing is.
// Columns are bytes of `text`, from 1, so they point into the user's line.
std::string entry_problem(std::string_view text) {
  if (auto bad = utf8_problem(text); !bad.empty()) return bad;
  const auto cps = code_points(text);
  size_t first = 0, last = cps.size();
  while (first < last && is_unicode_space(cps[first].cp)) ++first;
  while (last > first && is_unicode_space(cps[last - 1].cp)) --last;
  if (first == last) return "";
  const auto quoted =
      "\"" +
      std::string(text.substr(cps[first].at,
                              (last == cps.size() ? text.size() : cps[last].at) - cps[first].at)) +
      "\": ";
  for (size_t k = first; k < last; ++k) {
    const char32_t cp = cps[k].cp;
    if (is_word_char(cp) || is_unicode_space(cp)) continue;
    if (is_joiner(cp)) {
      if (k > 0 && k + 1 < cps.size() && is_word_char(cps[k - 1].cp) &&
          is_word_char(cps[k + 1].cp)) {
        continue;
      }
      return quoted + describe(cp) + " at " + column_of(cps[k].at) +
             " must join two letters or digits (a caption never holds such a word)";
    }
    return quoted + describe(cp) + " at " + column_of(cps[k].at) +
           ": an entry holds only letters, digits, hyphens, apostrophes and spaces";
  }
  return "";
}

// The key a word is compared by: lower-cased, the typeset apostrophe read as '.
std::string word_key(std::string_view word) {
  auto cps = unicode_lower(utf8_decode(std::string(word)));
  std::replace(cps.begin(), cps.end(), kRightSingleQuote, static_cast<char32_t>('\''));
  return utf8_encode(cps);
}

// The keys of the words of an entry text that entry_problem() accepted.
std::vector<std::string> entry_words(std::string_view text) {
  std::vector<std::string> words;
  size_t begin = kNone;
  for (const auto& c : code_points(text)) {
    if (is_unicode_space(c.cp)) {
      if (begin != kNone) words.push_back(word_key(text.substr(begin, c.at - begin)));
      begin = kNone;
    } else if (begin == kNone) {
      begin = c.at;
    }
  }
  if (begin != kNone) words.push_back(word_key(text.substr(begin)));
  return words;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

enum class Kind { Word, Space, Other };
struct Token {
  Kind kind;
  size_t begin, end;
};

// The caption as runs of word characters (joiners included between two of them), white space,
// and everything else — bytes that are not UTF-8 count as "everything else", so any caption
// splits and comes back byte for byte.
std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> tokens;
  bool in_word = false;
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    size_t n = code_point_at(s, i, &cp);
    if (n == 0) {
      cp = 0xFFFD;
      n = 1;
    }
    Kind kind = Kind::Other;
    if (is_word_char(cp)) {
      kind = Kind::Word;
    } else if (is_unicode_space(cp)) {
      kind = Kind::Space;
    } else if (is_joiner(cp) && in_word) {
      char32_t next = 0;
      if (i + n < s.size() && code_point_at(s, i + n, &next) > 0 && is_word_char(next)) {
        kind = Kind::Word;
      }
    }
    if (!tokens.empty() && tokens.back().kind == kind && tokens.back().end == i) {
      tokens.back().end = i + n;
    } else {
      tokens.push_back({kind, i, i + n});
    }
    in_word = kind == Kind::Word;
    i += n;
  }
  return tokens;
}

// The caption being rebuilt, remembering whether it ends with a white-space run (and where that
// run starts) so a removal can take it back.
class Output {
 public:
  void add(std::string_view s, Kind kind) {
    if (s.empty()) return;
    space_from_ = kind == Kind::Space ? text_.size() : kNone;
    text_ += s;
  }
  bool empty() const { return text_.empty(); }
  bool ends_with_space() const { return space_from_ != kNone; }
  void drop_trailing_space() {
    if (space_from_ != kNone) text_.resize(space_from_);
    space_from_ = kNone;
  }
  // The last byte before any trailing white space; '\0' when there is none.
  char last_visible() const {
    const size_t end = space_from_ != kNone ? space_from_ : text_.size();
    return end == 0 ? '\0' : text_[end - 1];
  }
  void pop_last() {
    text_.pop_back();
    space_from_ = kNone;
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
  size_t space_from_ = kNone;
};
}  // namespace

StructureWordList::StructureWordList(const std::vector<std::string>& entries) {
  for (const auto& e : entries) {
    if (auto problem = entry_problem(e); !problem.empty()) {
      throw std::invalid_argument("structure word list entry " + problem);
    }
    auto words = entry_words(e);
    if (words.empty()) {
      throw std::invalid_argument("structure word list entry \"" + e + "\": no word");
    }
    if (contains(e)) continue;
    entries_.push_back(join_words(words));
    by_first_word_[words.front()].push_back(std::move(words));
  }
  for (auto& [first, phrases] : by_first_word_) {
    std::stable_sort(phrases.begin(), phrases.end(),
                     [](const auto& a, const auto& b) { return a.size() > b.size(); });
  }
}

bool StructureWordList::contains(const std::string& entry) const {
  const auto words = entry_words(entry);
  if (words.empty()) return false;
  const auto it = by_first_word_.find(words.front());
  return it != by_first_word_.end() &&
         std::find(it->second.begin(), it->second.end(), words) != it->second.end();
}

StructureWordList read_structure_word_list(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw std::runtime_error(name + ": " + kWhat + ": no such file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(name + ": " + kWhat + ": cannot open the file");
  std::vector<std::string> entries;
  std::string line;
  for (int64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line_no == 1 && line.compare(0, kUtf8Bom.size(), kUtf8Bom) == 0) {
      line.erase(0, kUtf8Bom.size());
    }
    const auto where = name + ":" + std::to_string(line_no) + ": ";
    // The whole line, comment included: a file that is not UTF-8 is probably not the list at all
    // (or was saved in a legacy encoding, where its other lines would match wrongly).
    if (auto bad = utf8_problem(line); !bad.empty()) throw std::runtime_error(where + bad);
    const std::string_view text = std::string_view(line).substr(0, line.find(kCommentStart));
    if (auto problem = entry_problem(text); !problem.empty()) {
      throw std::runtime_error(where + problem);
    }
    auto words = entry_words(text);  // CRLF's '\r' is white space, so it goes here
    if (!words.empty()) entries.push_back(join_words(words));
  }
  if (in.bad()) throw std::runtime_error(name + ": " + kWhat + ": I/O error");
  if (entries.empty()) {
    throw std::runtime_error(name + ": no entries (every line is blank or a comment)");
  }
  return StructureWordList(entries);
}

std::string remove_structure_words(const std::string& caption, const StructureWordList& words) {
  const auto tokens = tokenize(caption);
  const size_t n = tokens.size();
  const auto text_of = [&](size_t t) {
    return std::string_view(caption).substr(tokens[t].begin, tokens[t].end - tokens[t].begin);
  };
  std::vector<std::string> keys(n);
  for (size_t t = 0; t < n; ++t) {
    if (tokens[t].kind == Kind::Word) keys[t] = word_key(text_of(t));
  }
  // A phrase's words are Word tokens with exactly one white-space run between each two.
  const auto phrase_end = [&](size_t t, const std::vector<std::string>& phrase) -> size_t {
    for (size_t w = 0; w < phrase.size(); ++w) {
      const size_t at = t + 2 * w;
      if (at >= n || tokens[at].kind != Kind::Word || keys[at] != phrase[w]) return 0;
      if (w > 0 && tokens[at - 1].kind != Kind::Space) return 0;
    }
    return t + 2 * phrase.size() - 1;
  };

  Output out;
  for (size_t t = 0; t < n;) {
    size_t next = 0;  // the token after the removed words; 0 while nothing is removed at t
    if (tokens[t].kind == Kind::Word) {
      const auto it = words.by_first_word_.find(keys[t]);
      if (it != words.by_first_word_.end()) {
        for (const auto& phrase : it->second) {  // longest first
          if ((next = phrase_end(t, phrase)) != 0) break;
        }
      }
    }
    if (next == 0) {
      out.add(text_of(t), tokens[t].kind);
      ++t;
      continue;
    }
    t = next;
    const auto skip_space_after = [&] {
      if (t < n && tokens[t].kind == Kind::Space && (out.empty() || out.ends_with_space())) ++t;
    };
    if (t < n && tokens[t].kind == Kind::Space) {
      skip_space_after();  // one of the two runs around the removed words goes
      continue;
    }
    const bool at_end = t >= n;
    const std::string_view punct = at_end ? std::string_view() : text_of(t);
    const char before = out.last_visible();
    const bool sentence_start = before == '\0' || is_stop(before);
    if (!at_end && sentence_start && punct.size() == 1 && is_stop(punct[0])) {
      ++t;  // the sentence was nothing but listed words: it goes with its stop
      skip_space_after();
      continue;
    }
    if (!at_end && sentence_start && is_separator(punct[0])) {
      out.add(punct.substr(1), Kind::Other);  // "Red, a circle" -> "a circle"
      ++t;
      if (punct.size() == 1) skip_space_after();
      continue;
    }
    out.drop_trailing_space();  // no space before punctuation
    if (is_separator(out.last_visible()) &&
        (at_end || is_separator(punct[0]) || is_stop(punct[0]))) {
      out.pop_last();  // "circle, hollow." -> "circle."
    }
  }
  return out.take();
}

}  // namespace hnclip
