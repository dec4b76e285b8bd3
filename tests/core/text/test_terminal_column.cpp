// Terminal table cells: widths in characters (code points), cuts at character boundaries.

#include "text/terminal_column.h"

#include <gtest/gtest.h>

namespace hnclip {
namespace {

TEST(TerminalColumn, WidthCountsCharactersNotBytes) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("name"), 4u);
  EXPECT_EQ(display_width("HN γ 0.5 · s 10"), 15u);  // γ and · are two bytes each
  EXPECT_EQ(display_width("…"), 1u);                 // three bytes
}

TEST(TerminalColumn, PadFillsToTheWidthAndAlwaysSeparates) {
  EXPECT_EQ(pad_column("γ", 4), "γ   ");
  EXPECT_EQ(pad_column("abcd", 4), "abcd ");
  EXPECT_EQ(pad_column("abcdef", 4), "abcdef ");
}

TEST(TerminalColumn, FitKeepsBothEndsAroundAnEllipsisCutAtCharacterBoundaries) {
  EXPECT_EQ(fit_column("γ · γ", 5), "γ · γ");  // fits: unchanged
  EXPECT_EQ(fit_column("γγγγγγ", 4), "γγ…γ");  // odd: one more at the start
  EXPECT_EQ(display_width(fit_column("γγγγγγ", 4)), 4u);
  EXPECT_EQ(fit_column("abcdef", 5), "ab…ef");
  EXPECT_EQ(fit_column("abcdef", 2), "a…");
  EXPECT_EQ(fit_column("abcdef", 1), "…");
  EXPECT_EQ(fit_column("abcdef", 0), "");
  EXPECT_EQ(fit_column("a·bcde·f", 5), "a·…·f");
  // What the run list needs: the seed of an experiment's run, the split of a test set.
  EXPECT_EQ(fit_column("a long experiment name · HN γ 0.5 · seed 2", 21), "a long exp…5 · seed 2");
}

TEST(TerminalColumn, ColumnWidthIsTheWidestEntryUpToAMaximum) {
  EXPECT_EQ(column_width("name", {"γ · γ", "ab"}, 48), 5u);  // characters, not the 9 bytes
  EXPECT_EQ(column_width("name", {"ab", ""}, 48), 4u);       // the header counts
  EXPECT_EQ(column_width("name", {}, 48), 4u);
  EXPECT_EQ(column_width("name", {std::string(60, 'x')}, 48), 48u);
}

}  // namespace
}  // namespace hnclip
