// ftfy_fix_text: each default ftfy fix on hand-checked strings, ftfy's order and fixed-point loop,
// and utf8proc's NFC (Unicode 15) against Python 3.11's unicodedata (Unicode 14) on every code
// point (tests/core/reference/nfc_reference.py).

#include "text/ftfy_fixes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_dirs.h"
#include "text/unicode_text.h"

namespace hnclip {
namespace {

using nlohmann::json;

std::string fix(const std::string& s) { return ftfy_fix_text(s); }

TEST(FtfyFixes, PlainAsciiIsUnchanged) {
  const std::string s = "A red circle, a 'blue' square and \"two\" dogs; 3 < 4 & 5 > 2.\tEnd\n";
  FtfyFixReport r;
  EXPECT_EQ(ftfy_fix_text(s, &r), s);
  EXPECT_FALSE(r.any());
}

TEST(FtfyFixes, UncurlsFtfysQuoteSetsOnly) {
  EXPECT_EQ(fix("it\u2019s \u2018a\u2019 \u201ab\u201b \u02bcc"), "it's 'a' 'b' 'c");
  EXPECT_EQ(fix("\u201chi\u201d \u201elo\u201f"), "\"hi\" \"lo\"");
  // Primes and guillemets are not in ftfy's SINGLE_QUOTE_RE / DOUBLE_QUOTE_RE.
  EXPECT_EQ(fix("5\u2032 6\u2033 \u00abx\u00bb \u2039y\u203a"), "5\u2032 6\u2033 \u00abx\u00bb \u2039y\u203a");
  FtfyFixReport r;
  ftfy_fix_text("it\u2019s", &r);
  EXPECT_TRUE(r.quotes);
  EXPECT_FALSE(r.nfc || r.width || r.ligatures);
}

TEST(FtfyFixes, SplitsLatinLigaturesAsFtfysTable) {
  EXPECT_EQ(fix("\ufb01ne \ufb02at \ufb00 \ufb03 \ufb04 \ufb05 \ufb06"), "fine flat ff ffi ffl \u017ft st");
  EXPECT_EQ(fix("\u0132s\u0133s"), "IJsijs");
  EXPECT_EQ(fix("\u01c4 \u01c5 \u01c6 \u01c7\u01c8\u01c9 \u01ca\u01cb\u01cc \u01f1\u01f2\u01f3"),
            "D\u017d D\u017e d\u017e LJLjlj NJNjnj DZDzdz");
  // U+0149 becomes U+02BC + n, which uncurl_quotes (a later step) straightens.
  EXPECT_EQ(fix("\u0149"), "'n");
  // æ and œ are ligatures ftfy keeps.
  EXPECT_EQ(fix("\u00e6 \u0153"), "\u00e6 \u0153");
}

TEST(FtfyFixes, FoldsFullAndHalfWidthForms) {
  EXPECT_EQ(fix("\uff21\uff22\uff23"), "ABC");
  EXPECT_EQ(fix("\uff4c\uff4f\uff55\uff44\u3000\uff11\uff12\uff01"), "loud 12!");
  EXPECT_EQ(fix("\uff76\uff9e"), "\u30ac");  // half-width ka + voiced mark -> ga (NFKC, then NFC)
  // Full-width katakana and CJK punctuation are outside U+FF01-FFEF: unchanged.
  EXPECT_EQ(fix("\u30bf\u30ef\u30fc\u3001"), "\u30bf\u30ef\u30fc\u3001");
}

TEST(FtfyFixes, UnifiesLineBreaks) {
  EXPECT_EQ(fix("a\r\nb"), "a\nb");
  EXPECT_EQ(fix("a\rb\u2028c\u2029d"), "a\nb\nc\nd");
}

TEST(FtfyFixes, ReadsC1ControlsAsWindows1252) {
  // U+0085 is fixed to an ellipsis before fix_line_breaks could see it, as in ftfy.
  EXPECT_EQ(fix("x\u0092y \u0085 \u0080 \u0096"), "x'y \u2026 \u20ac \u2013");
  // Bytes cp1252 leaves undefined stay.
  EXPECT_EQ(fix("\u0081\u008d\u008f\u0090\u009d"), "\u0081\u008d\u008f\u0090\u009d");
}

TEST(FtfyFixes, RemovesFtfysControlCharacters) {
  EXPECT_EQ(fix("a\x01" "b\x7f" "c\x0b" "d\ufeff" "e\u206a" "f\ufffc" "g"), "abcdefg");
  // Whitespace controls, joiners and bidi marks stay.
  EXPECT_EQ(fix("a\tb\x0c" "c\u200dd\u200fe\u202af"), "a\tb\x0c" "c\u200dd\u200fe\u202af");
  FtfyFixReport r;
  ftfy_fix_text("a\x02", &r);
  EXPECT_TRUE(r.control_chars);
}

TEST(FtfyFixes, RemovesTerminalEscapesWhole) {
  EXPECT_EQ(fix("\x1b[1;31mred\x1b[0m text"), "red text");
  // ESC without a complete sequence: only the ESC goes (remove_control_chars).
  EXPECT_EQ(fix("\x1b[12 x"), "[12 x");
}

TEST(FtfyFixes, ComposesToNfc) {
  EXPECT_EQ(fix("e\u0301"), "\u00e9");
  EXPECT_EQ(fix("cafe\u0301 \u1100\u1161"), "caf\u00e9 \uac00");
  FtfyFixReport r;
  ftfy_fix_text("e\u0301", &r);
  EXPECT_TRUE(r.nfc);
}

TEST(FtfyFixes, UnescapesHtmlUntilTheFirstLineWithAnAngleBracket) {
  EXPECT_EQ(fix("it&rsquo;s &amp; &eacute;"), "it's & \u00e9");  // decoded, then uncurled
  EXPECT_EQ(fix("<b>it&rsquo;s</b>"), "<b>it&rsquo;s</b>");
  // Lines before the first '<' are unescaped, none from there on (ftfy's config stays off).
  EXPECT_EQ(fix("&amp;\n<i>&amp;</i>\n&amp;"), "&\n<i>&amp;</i>\n&amp;");
  // The loop runs to a fixed point.
  EXPECT_EQ(fix("&amp;amp;amp;"), "&");
  // ftfy's _unescape_fixup: a ';' left in the result keeps the match as it was; no ';', no match.
  EXPECT_EQ(fix("&#59; &nosuch; &amp"), "&#59; &nosuch; &amp");
  EXPECT_EQ(fix("&#x41;&#66;"), "AB");
  // Upper-cased names are ftfy's only, documented as not done.
  EXPECT_EQ(fix("&EACUTE;"), "&EACUTE;");
}

TEST(FtfyFixes, InvalidUtf8ReadsAsReplacementCharacters) {
  EXPECT_EQ(fix("a\xff" "b"), "a\ufffd" "b");
}

// utf8proc (Unicode 15) vs Python's unicodedata (Unicode 14): NFC of each code point alone, after
// it an acute, and between "a" and a class-220 mark. Every difference must be a code point that
// Unicode 14 had not assigned yet (Python treats those as plain starters); captions written in
// Unicode 14 characters normalise the same with both.
TEST(FtfyFixes, Utf8procNfcMatchesPythonForEveryUnicode14CodePoint) {
  test::ScratchDir dir;
  std::string out, err;
  const std::string cmd = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                          "/core/reference/nfc_reference.py " + (dir / "nfc.json").string();
  ASSERT_EQ(test::run_command(cmd, &out, &err), 0) << "reference script failed: " << err;
  const auto ref = json::parse(test::read_text_file(dir / "nfc.json"));
  const auto unassigned = ref["unassigned"].get<std::vector<std::pair<uint32_t, uint32_t>>>();
  auto is_unassigned = [&](char32_t cp) {
    return std::any_of(unassigned.begin(), unassigned.end(),
                       [&](const auto& r) { return cp >= r.first && cp <= r.second; });
  };
  std::map<std::pair<char32_t, int>, std::u32string> changed;
  for (const auto& row : ref["changed"]) {
    const auto nfc = row[2].get<std::vector<uint32_t>>();
    changed[{static_cast<char32_t>(row[0].get<uint32_t>()), row[1].get<int>()}] =
        std::u32string(nfc.begin(), nfc.end());
  }
  ASSERT_GT(changed.size(), 1000u);  // the reference did run over the whole range
  int differing = 0, differing_assigned = 0;
  std::ostringstream which_differ;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::u32string variants[3] = {std::u32string(1, cp), std::u32string{cp, 0x301},
                                        std::u32string{U'a', cp, 0x316}};
    bool differs = false;
    for (int which = 0; which < 3; ++which) {
      const auto it = changed.find({cp, which});
      const std::u32string& python = it == changed.end() ? variants[which] : it->second;
      if (utf8_decode(utf8proc_nfc(utf8_encode(variants[which]))) != python) differs = true;
    }
    if (!differs) continue;
    ++differing;
    which_differ << " U+" << std::hex << std::uppercase << static_cast<uint32_t>(cp);
    if (!is_unassigned(cp)) {
      ++differing_assigned;
      ADD_FAILURE() << "U+" << std::hex << static_cast<uint32_t>(cp)
                    << ": NFC differs and Python's Unicode " << ref["unidata_version"]
                    << " assigns it";
    }
  }
  std::cout << "utf8proc NFC vs Python unicodedata " << ref["unidata_version"].get<std::string>()
            << ": " << differing << " code points differ, " << differing_assigned
            << " of them assigned in Python's version:" << which_differ.str() << "\n";
  EXPECT_EQ(differing_assigned, 0);
}

}  // namespace
}  // namespace hnclip
