#include <gtest/gtest.h>

#include "text/shared_content_words.h"

namespace hnclip {
namespace {

using Words = std::vector<std::string>;

TEST(SharedContentWords, OrderOfFirstAppearanceInFirstCaptionWithoutStopWords) {
  const std::string a = "A red cube sits on the left of a blue sphere. The cube is large.";
  const std::string b = "A large blue sphere is on the right of the green cube.";
  EXPECT_EQ(shared_content_words(a, b), (Words{"cube", "blue", "sphere", "large"}));
  EXPECT_EQ(shared_content_words(b, a), (Words{"large", "blue", "sphere", "cube"}));
}

TEST(SharedContentWords, CaseAndPunctuationFollowTheWordSplitter) {
  EXPECT_EQ(shared_content_words("Two CATS, three dogs!", "cats and 3 dogs"),
            (Words{"cats", "dogs"}));
  EXPECT_EQ(shared_content_words("item42 near item7", "ITEM42"), (Words{"item42"}));
}

TEST(SharedContentWords, NothingSharedButStopWords) {
  EXPECT_TRUE(shared_content_words("the cat is on a mat", "a dog is in the house").empty());
  EXPECT_TRUE(shared_content_words("", "anything").empty());
  EXPECT_TRUE(is_stop_word("the"));
  EXPECT_FALSE(is_stop_word("cube"));
}

TEST(SharedContentWords, NoDuplicates) {
  EXPECT_EQ(shared_content_words("cube cube sphere cube", "sphere cube"),
            (Words{"cube", "sphere"}));
}

}  // namespace
}  // namespace hnclip
