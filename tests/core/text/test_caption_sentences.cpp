// Tests core/text/caption_sentences: the one sentence rule the frameworks share (split at ". ",
// final "." kept, empty pieces skipped).

#include "text/caption_sentences.h"

#include <gtest/gtest.h>

namespace hnclip {
namespace {

TEST(CaptionSentences, SplitAtFullStopSpace) {
  EXPECT_EQ(caption_sentences("A red cube. A blue ball. Grass."),
            (std::vector<std::string>{"A red cube", "A blue ball", "Grass."}));
  EXPECT_EQ(caption_sentences("one sentence"), (std::vector<std::string>{"one sentence"}));
  EXPECT_TRUE(caption_sentences("").empty());
  EXPECT_EQ(caption_sentences("a. . b"), (std::vector<std::string>{"a", "b"}));
  // A full stop without a following space (an abbreviation's, a number's) does not split.
  EXPECT_EQ(caption_sentences("It is 2.5 m tall. Done."),
            (std::vector<std::string>{"It is 2.5 m tall", "Done."}));
}

}  // namespace
}  // namespace hnclip
