// word_diff on hand-made captions: which words of each side are outside the common subsequence
// (insertions, deletions, substitutions), with case and punctuation never counting as a change,
// and the prefix helpers the caption lists use.
#include "text/word_diff.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hnclip {
namespace {

using Words = std::vector<std::string>;

// The words of one side marked as differing, as they are spelled in the text.
Words differing(const std::string& text, const std::vector<TextWord>& words,
                const std::vector<bool>& marks) {
  Words out;
  for (size_t i = 0; i < words.size(); ++i)
    if (marks[i]) out.push_back(text.substr(words[i].begin, words[i].end - words[i].begin));
  return out;
}

Words removed(const std::string& a, const std::string& b) {
  const auto d = word_diff(a, b);
  return differing(a, d.a, d.a_differs());
}

Words added(const std::string& a, const std::string& b) {
  const auto d = word_diff(a, b);
  return differing(b, d.b, d.b_differs());
}

TEST(TextWords, SplitsOnPunctuationAndKeepsPositions) {
  const std::string text = "A red-cube, 2 über!";
  const auto words = text_words(text);
  ASSERT_EQ(words.size(), 5u);
  EXPECT_EQ(words[0].key, "a");
  EXPECT_EQ(words[1].key, "red");
  EXPECT_EQ(words[2].key, "cube");
  EXPECT_EQ(words[3].key, "2");
  EXPECT_EQ(words[4].key, "über");  // a UTF-8 character is part of its word, never a separator
  EXPECT_EQ(text.substr(words[2].begin, words[2].end - words[2].begin), "cube");
  EXPECT_EQ(words[4].end, text.size() - 1);
}

TEST(WordDiff, Substitution) {
  const std::string a = "This image shows three objects on a wooden table: a red cube.";
  const std::string b = "This image shows three objects on a wooden table: a blue cube.";
  EXPECT_EQ(removed(a, b), Words{"red"});
  EXPECT_EQ(added(a, b), Words{"blue"});
  const auto d = word_diff(a, b);
  EXPECT_FALSE(d.identical());
  // The removed word comes right before the added one in the edit script.
  size_t removed_at = 0, added_at = 0;
  for (size_t k = 0; k < d.ops.size(); ++k) {
    if (d.ops[k].kind == WordDiffOp::kRemoved) removed_at = k;
    if (d.ops[k].kind == WordDiffOp::kAdded) added_at = k;
  }
  EXPECT_EQ(added_at, removed_at + 1);
  EXPECT_EQ(d.ops.size(), d.a.size() + 1);  // every word of each side exactly once
}

TEST(WordDiff, InsertionAndDeletion) {
  EXPECT_EQ(added("a cube on a table", "a small cube on a table"), Words{"small"});
  EXPECT_TRUE(removed("a cube on a table", "a small cube on a table").empty());
  EXPECT_EQ(removed("a cube on a wooden table", "a cube on a table"), Words{"wooden"});
  EXPECT_TRUE(added("a cube on a wooden table", "a cube on a table").empty());
  // Several changes in one caption, far apart.
  EXPECT_EQ(added("one red cube left of two spheres", "one blue cube left of three spheres"),
            (Words{"blue", "three"}));
}

TEST(WordDiff, CaseAndPunctuationAreNotDifferences) {
  const auto d = word_diff("A Red cube, on the table.", "a red cube on the TABLE");
  EXPECT_TRUE(d.identical());
  EXPECT_TRUE(removed("Red, cube", "red cube!").empty());
  EXPECT_TRUE(added("Red, cube", "red cube!").empty());
}

TEST(WordDiff, RepeatedWordsMatchOnce) {
  // "cube" twice in b, once in a: exactly one of b's is added.
  EXPECT_EQ(added("a cube and a sphere", "a cube and a cube and a sphere").size(), 3u);
  EXPECT_EQ(added("red", "red red"), Words{"red"});
}

TEST(WordDiff, EmptyAndIdentical) {
  EXPECT_TRUE(word_diff("", "").identical());
  EXPECT_TRUE(word_diff("", "").ops.empty());
  EXPECT_EQ(added("", "two words"), (Words{"two", "words"}));
  EXPECT_EQ(removed("two words", ""), (Words{"two", "words"}));
  EXPECT_TRUE(word_diff("  ,.;", "!").identical());  // no words at all on either side
  const std::string same = "This image shows three objects on a table.";
  const auto d = word_diff(same, same);
  EXPECT_TRUE(d.identical());
  EXPECT_EQ(d.ops.size(), d.a.size());
}

TEST(WordDiff, NothingInCommon) {
  EXPECT_EQ(removed("red cube", "blue sphere"), (Words{"red", "cube"}));
  EXPECT_EQ(added("red cube", "blue sphere"), (Words{"blue", "sphere"}));
}

TEST(FirstDifferingWord, OffsetOfTheFirstChangedWord) {
  const std::string a = "This image shows three objects on a table: a red cube.";
  const std::string b = "This image shows three objects on a table: a blue cube.";
  EXPECT_EQ(first_differing_word(a, b), a.find("red"));
  EXPECT_EQ(first_differing_word(b, a), b.find("blue"));
  EXPECT_EQ(first_differing_word("Red cube", "red sphere"), 4u);       // case does not count
  EXPECT_EQ(first_differing_word("a cube", "a cube on a table"), 6u);  // nothing of its own
  EXPECT_EQ(first_differing_word("a cube on a table", "a cube"), 7u);  // "on" is past b's end
  EXPECT_EQ(first_differing_word("", "anything"), 0u);
}

TEST(CommonLeadingWords, CountsTheSharedOpening) {
  EXPECT_EQ(common_leading_words({"This image shows three objects", "this image shows two",
                                  "This image, shows three"}),
            3u);
  EXPECT_EQ(common_leading_words({"a b c", "a b c"}), 3u);
  EXPECT_EQ(common_leading_words({"a b c", "x b c"}), 0u);
  EXPECT_EQ(common_leading_words({"a b c"}), 0u);
  EXPECT_EQ(common_leading_words({}), 0u);
}

}  // namespace
}  // namespace hnclip
