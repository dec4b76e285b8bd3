#pragma once
// Unicode helpers for the CLIP text cleaner: UTF-8 <-> code points, and the character classes and
// lower-casing that OpenAI CLIP's simple_tokenizer gets from Python (`\p{L}`, `\p{N}`, `\s`,
// str.lower()). Classes come from tables generated out of Python's unicodedata (Unicode 14.0) by
// core/text/gen_text_tables.py, so they are exact for every code point, not a locale's guess.
// Stateless functions over immutable tables: safe from any thread.

#include <string>

namespace hnclip {

// Decodes UTF-8. Every byte that does not start a well-formed sequence (stray continuation byte,
// truncated or overlong sequence, surrogate, > U+10FFFF) becomes one U+FFFD and decoding resumes
// at the next byte, so any byte string decodes.
std::u32string utf8_decode(const std::string& text);
void append_utf8(std::string& out, char32_t cp);
std::string utf8_encode(const std::u32string& text);

// General category L* (Lu Ll Lt Lm Lo), what `\p{L}` matches.
bool is_unicode_letter(char32_t cp);
// General category N* (Nd Nl No), what `\p{N}` matches.
bool is_unicode_number(char32_t cp);
// Python's str.isspace() (and so `\s` of Python's re and str.strip()): U+0009-000D, U+001C-001F,
// U+0020, U+0085, U+00A0, U+1680, U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_unicode_space(char32_t cp);

// Python's str.lower() for every code point (all scripts: Latin, Greek, Cyrillic, Armenian,
// Georgian, Cherokee, Deseret, ...), including U+0130 -> "i" U+0307, except the context-dependent
// Greek final sigma: U+03A3 always becomes U+03C3, never U+03C2 at the end of a word.
std::u32string unicode_lower(const std::u32string& text);

}  // namespace hnclip
