// compare_cleaning: which captions the ftfy-like fixes change the CLIP tokens of, counted over the
// whole caption and within the context, and per fix.

#include "text/cleaning_comparison.h"

#include <gtest/gtest.h>

namespace hnclip {
namespace {

TEST(CleaningComparison, CountsCaptionsWhoseTokensChangeAndTheFixesThatFired) {
  const ClipBpeTokenizer tok(HNCLIP_VOCAB_PATH, 8);
  std::string long_prefix;
  for (int i = 0; i < 20; ++i) long_prefix += "cat ";
  const auto c = compare_cleaning(
      tok, {"a plain caption", "it\u2019s \ufb01ne", "cafe\u0301", long_prefix + "dog\u2019s",
            "a\r\nb", "<i>it&rsquo;s</i>"});
  EXPECT_EQ(c.captions, 6);
  // "a\r\nb" changes (\r\n -> \n) but whitespace cleaning makes both "a b"; the '<' line is left
  // to CLIP's html.unescape, which keeps the curly quote. The long caption differs past token 8.
  EXPECT_EQ(c.differ, 3);
  EXPECT_EQ(c.differ_in_context, 2);
  EXPECT_EQ(c.quotes, 2);
  EXPECT_EQ(c.ligatures, 1);
  EXPECT_EQ(c.nfc, 1);
  EXPECT_EQ(c.line_breaks, 1);
  EXPECT_EQ(c.html, 0);
  EXPECT_EQ(c.width + c.control_chars + c.c1_controls + c.terminal_escapes, 0);
}

TEST(CleaningComparison, AsciiCaptionsAllTokenizeTheSame) {
  const ClipBpeTokenizer tok(HNCLIP_VOCAB_PATH);
  const auto c = compare_cleaning(tok, {"A red circle.", "Two \"blue\" squares & it's 3 < 4."});
  EXPECT_EQ(c.captions, 2);
  EXPECT_EQ(c.differ, 0);
  EXPECT_EQ(c.html + c.quotes + c.nfc, 0);
}

}  // namespace
}  // namespace hnclip
