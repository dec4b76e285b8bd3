// Tests core/train/debias_caption: DeBias-CLIP's augmented caption — the summary sentence dropped,
// a uniform subset of the others kept in order, one-sentence captions kept whole — and the
// padding that moves a token row's content later while keeping its start and end tokens.

#include "train/debias_caption.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <set>

namespace hnclip {
namespace {

TEST(DebiasCaption, DropsTheSummaryAndKeepsAUniformOrderedSubset) {
  const std::string caption = "S0. s1. s2. s3. s4. s5. s6";
  std::mt19937_64 rng(1);
  std::map<std::string, int> seen;  // how often each detail sentence is kept
  for (int trial = 0; trial < 3000; ++trial) {
    const auto text = debias_caption_text(caption, 0.5, rng);
    const auto kept = caption_sentences(text);
    ASSERT_EQ(kept.size(), 3u) << text;  // round(0.5 · 6)
    std::set<std::string> unique(kept.begin(), kept.end());
    EXPECT_EQ(unique.size(), 3u) << text;
    EXPECT_EQ(unique.count("S0"), 0u) << text;  // never the summary
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end())) << text;  // in the caption's order
    for (const auto& k : kept) ++seen[k];
  }
  ASSERT_EQ(seen.size(), 6u);
  for (const auto& [sentence, n] : seen) {
    EXPECT_NEAR(n / 3000.0, 0.5, 0.05) << sentence;  // each kept half the time
  }
  std::mt19937_64 a(9), b(9);
  EXPECT_EQ(debias_caption_text(caption, 0.3, a), debias_caption_text(caption, 0.3, b));
  EXPECT_EQ(debias_caption_text(caption, 1.0, rng), "s1. s2. s3. s4. s5. s6");
  EXPECT_EQ(caption_sentences(debias_caption_text(caption, 0.01, rng)).size(), 1u);  // at least 1
  EXPECT_EQ(debias_caption_text("only a summary.", 0.5, rng), "only a summary.");
  EXPECT_THROW(debias_caption_text(caption, 0.0, rng), std::invalid_argument);
  EXPECT_THROW(debias_caption_text(caption, 1.5, rng), std::invalid_argument);
}

TEST(DebiasCaption, PaddingMovesContentLaterAndKeepsStartAndEnd) {
  // Rows: start 90, content, end 99 (the largest id), padding 0.
  const auto tokens = torch::tensor({90, 5, 6, 7, 99, 0, 0, 0,    //
                                     90, 1, 2, 3, 4, 5, 6, 99,   // fills the context
                                     90, 99, 0, 0, 0, 0, 0, 0},  // no content
                                    torch::kLong)
                          .view({3, 8});
  EXPECT_EQ(token_lengths(tokens), (std::vector<int64_t>{5, 8, 2}));
  const auto padded = prepend_padding(tokens, {2, 3, 4});
  EXPECT_TRUE(torch::equal(padded[0], torch::tensor({90, 0, 0, 5, 6, 7, 99, 0}, torch::kLong)));
  // Too long for its padding: content is cut before the end token, which stays.
  EXPECT_TRUE(torch::equal(padded[1], torch::tensor({90, 0, 0, 0, 1, 2, 3, 99}, torch::kLong)));
  EXPECT_TRUE(torch::equal(padded[2], torch::tensor({90, 0, 0, 0, 0, 99, 0, 0}, torch::kLong)));
  EXPECT_EQ(token_lengths(padded), (std::vector<int64_t>{7, 8, 6}));
  // More padding than the row holds: start, pads, end.
  const auto full = prepend_padding(tokens, {100, 0, 0});
  EXPECT_TRUE(torch::equal(full[0], torch::tensor({90, 0, 0, 0, 0, 0, 0, 99}, torch::kLong)));
  EXPECT_TRUE(torch::equal(full[1], tokens[1]));  // no padding: unchanged
  EXPECT_TRUE(torch::equal(tokens[0], torch::tensor({90, 5, 6, 7, 99, 0, 0, 0}, torch::kLong)));
  EXPECT_THROW(prepend_padding(tokens, {1, 2}), std::invalid_argument);
  EXPECT_THROW(prepend_padding(tokens, {1, -1, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
