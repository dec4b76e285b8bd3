// unicode_text against Python itself (/usr/bin/python3): the letter / number / space classes and
// str.lower() of every code point, and UTF-8 decoding of malformed input.

#include "text/unicode_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

TEST(UnicodeText, ClassesAndLowerCaseMatchPythonForEveryCodePoint) {
  test::ScratchDir dir;
  // One class letter per code point (L letter, N number, S space, - other), and every code point
  // whose lower case differs, with that lower case as a list of code points.
  const std::string script =
      "import json, sys, unicodedata\n"
      "cls = []\n"
      "low = {}\n"
      "for cp in range(0x110000):\n"
      "    c = chr(cp); cat = unicodedata.category(c)\n"
      "    cls.append('L' if cat[0] == 'L' else 'N' if cat[0] == 'N' else 'S' if c.isspace() else "
      "'-')\n"
      "    if c.lower() != c: low[cp] = [ord(x) for x in c.lower()]\n"
      "json.dump({'classes': ''.join(cls), 'lower': low, 'version': unicodedata.unidata_version},"
      " open(sys.argv[1], 'w'))\n";
  test::write_text_file(dir / "dump.py", script);
  std::string out, err;
  ASSERT_EQ(test::run_command(std::string(HNCLIP_REFERENCE_PYTHON) + " " +
                                  (dir / "dump.py").string() + " " + (dir / "ref.json").string(),
                              &out, &err),
            0)
      << err;
  const auto ref = nlohmann::json::parse(test::read_text_file(dir / "ref.json"));
  const auto classes = ref["classes"].get<std::string>();
  ASSERT_EQ(classes.size(), 0x110000u);
  // The tables are Unicode 14.0 (Debian 12's Python). A newer Python (Debian 13's 3.13: 15.1)
  // knows letters and numbers assigned since, which the tables rightly leave as "other"; those,
  // and only those, are let through there (Unicode 15.0 and 15.1 assigned 5,116 characters).
  const bool same_unicode = ref["version"].get<std::string>() == "14.0.0";
  size_t mismatches = 0, newer = 0;
  for (char32_t cp = 0; cp < 0x110000; ++cp) {
    const char want = classes[cp];
    const char got = is_unicode_letter(cp)   ? 'L'
                     : is_unicode_number(cp) ? 'N'
                     : is_unicode_space(cp)  ? 'S'
                                             : '-';
    if (got == want) continue;
    if (!same_unicode && got == '-' && (want == 'L' || want == 'N')) {
      ++newer;
      continue;
    }
    if (mismatches++ < 10)
      ADD_FAILURE() << "U+" << std::hex << cp << ": " << got << " vs Python " << want;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_LE(newer, 5116u) << "Python's Unicode " << ref["version"].get<std::string>();

  const auto& lower = ref["lower"];
  size_t changed = 0;
  for (char32_t cp = 0; cp < 0x110000; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;  // not encodable, never produced by utf8_decode
    const auto got = unicode_lower(std::u32string(1, cp));
    const auto it = lower.find(std::to_string(cp));
    std::u32string want(1, cp);
    if (it != lower.end()) {
      want.clear();
      for (auto v : *it) want.push_back(static_cast<char32_t>(v.get<uint32_t>()));
      ++changed;
    }
    if (got != want) ADD_FAILURE() << "lower of U+" << std::hex << static_cast<uint32_t>(cp);
  }
  EXPECT_GT(changed, 1400u);  // Latin, Greek, Cyrillic, Armenian, Georgian, ... all covered
}

TEST(UnicodeText, Utf8RoundTripAndMalformedBytes) {
  const std::string mixed = "a\xc3\xa9\xe6\x9d\xb1\xf0\x9f\x90\xb1";  // a é 東 🐱
  EXPECT_EQ(utf8_decode(mixed), (std::u32string{U'a', 0xE9, 0x6771, 0x1F431}));
  EXPECT_EQ(utf8_encode(utf8_decode(mixed)), mixed);
  // Stray continuation, truncated sequence, overlong '/', encoded surrogate, > U+10FFFF.
  EXPECT_EQ(utf8_decode("\x80"), std::u32string(1, 0xFFFD));
  EXPECT_EQ(utf8_decode("\xe6\x9d"), (std::u32string{0xFFFD, 0xFFFD}));
  EXPECT_EQ(utf8_decode("\xc0\xaf"), (std::u32string{0xFFFD, 0xFFFD}));
  EXPECT_EQ(utf8_decode("\xed\xa0\x80x"), (std::u32string{0xFFFD, 0xFFFD, 0xFFFD, U'x'}));
  EXPECT_EQ(utf8_decode("\xf4\x90\x80\x80"), std::u32string(4, 0xFFFD));
}

}  // namespace
}  // namespace hnclip
