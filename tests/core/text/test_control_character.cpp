// control_character_in: names are one line, so a line break, a tab or another control character
// is found and described; printable text in any script is not.

#include "text/control_character.h"

#include <gtest/gtest.h>

namespace hnclip {
namespace {

TEST(ControlCharacter, PrintableTextHasNone) {
  EXPECT_EQ(control_character_in(""), "");
  EXPECT_EQ(control_character_in("s52 · HN γ 0.5 · Ḡ frozen · seed 2"), "");
  EXPECT_EQ(control_character_in("長い名前 — 1"), "");
}

TEST(ControlCharacter, LineBreaksTabsAndOthersAreDescribed) {
  EXPECT_EQ(control_character_in("a\nb"), "a line break");
  EXPECT_EQ(control_character_in("a\r\nb"), "a line break");
  EXPECT_EQ(control_character_in("a\u2028b"), "a line break");
  EXPECT_EQ(control_character_in("a\tb"), "a tab");
  EXPECT_EQ(control_character_in("a\x1b[31mb"), "control character U+001B");
  EXPECT_EQ(control_character_in(std::string("a\0b", 3)), "control character U+0000");
  EXPECT_EQ(control_character_in("a\x7f"), "control character U+007F");
  EXPECT_EQ(control_character_in("a\u0085"), "control character U+0085");
}

TEST(ControlCharacter, OneLineReplacesThemBySpaces) {
  EXPECT_EQ(one_line("s52 · γ 0.5"), "s52 · γ 0.5");
  EXPECT_EQ(one_line("first line\nsecond\tline"), "first line second line");
  EXPECT_EQ(one_line("a\u2028γ\x1b"), "a γ ");
}

}  // namespace
}  // namespace hnclip
