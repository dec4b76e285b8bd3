// Tests core/text/word_chunks: n-word chunks in order with the remainder last, what is kept
// between a chunk's words and dropped between chunks, empty text, and the argument check.

#include "text/word_chunks.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace hnclip {
namespace {

using Chunks = std::vector<std::string>;

TEST(WordChunks, CutsConsecutiveWordsWithTheRemainderLast) {
  const std::string s = "A large hollow circle sits near the top left.";
  EXPECT_EQ(word_chunks(s, 3), (Chunks{"A large hollow", "circle sits near", "the top left"}));
  EXPECT_EQ(word_chunks(s, 4), (Chunks{"A large hollow circle", "sits near the top", "left"}));
  EXPECT_EQ(word_chunks(s, 1).size(), 9u);
  EXPECT_EQ(word_chunks(s, 100), (Chunks{"A large hollow circle sits near the top left"}));
}

TEST(WordChunks, KeepsWhatLiesBetweenAChunksWordsAndDropsWhatLiesBetweenChunks) {
  // "off-white" is two words to text_words; inside a chunk the hyphen stays.
  EXPECT_EQ(word_chunks("an off-white,  striped box", 2),
            (Chunks{"an off", "white,  striped", "box"}));
  EXPECT_EQ(word_chunks("one, two; three", 2), (Chunks{"one, two", "three"}));
}

TEST(WordChunks, NoWordsNoChunksAndABadSizeIsRefused) {
  EXPECT_TRUE(word_chunks("", 3).empty());
  EXPECT_TRUE(word_chunks(" ... ", 3).empty());
  EXPECT_THROW(word_chunks("a b", 0), std::invalid_argument);
  EXPECT_THROW(word_chunks("a b", -2), std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
