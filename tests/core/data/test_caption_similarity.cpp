#include "data/caption_similarity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "text/word_tokenizer.h"

namespace hnclip {
namespace {

// The statistics straight from their definition, in double precision, O(n^2) with maps.
CaptionSimilarityStats brute_force(const std::vector<std::string>& captions) {
  const size_t n = captions.size();
  std::vector<std::map<std::string, double>> bags(n);
  double words = 0;
  for (size_t i = 0; i < n; ++i) {
    for (const auto& w : WordTokenizer::words(captions[i])) bags[i][w] += 1;
    words += static_cast<double>(WordTokenizer::words(captions[i]).size());
  }
  auto cosine = [&](size_t i, size_t j) {
    double dot = 0, ni = 0, nj = 0;
    for (const auto& [w, c] : bags[i]) {
      ni += c * c;
      const auto it = bags[j].find(w);
      if (it != bags[j].end()) dot += c * it->second;
    }
    for (const auto& [w, c] : bags[j]) nj += c * c;
    return ni == 0 || nj == 0 ? 0.0 : dot / std::sqrt(ni * nj);
  };
  CaptionSimilarityStats s;
  s.count = static_cast<int64_t>(n);
  s.mean_words = words / static_cast<double>(n);
  double pair_sum = 0;
  std::vector<double> hardest(n, -1);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const double c = cosine(i, j);
      pair_sum += c;
      hardest[i] = std::max(hardest[i], c);
    }
  }
  s.mean_pairwise = pair_sum / static_cast<double>(n * (n - 1));
  for (const double h : hardest) s.mean_hardest += h / static_cast<double>(n);
  std::sort(hardest.begin(), hardest.end());
  s.median_hardest = n % 2 ? hardest[n / 2] : 0.5 * (hardest[n / 2 - 1] + hardest[n / 2]);
  return s;
}

void expect_near_stats(const CaptionSimilarityStats& got, const CaptionSimilarityStats& want) {
  constexpr double kTol = 1e-5;  // the function accumulates cosines in float rows
  EXPECT_EQ(got.count, want.count);
  EXPECT_NEAR(got.mean_words, want.mean_words, 1e-12);
  EXPECT_NEAR(got.mean_pairwise, want.mean_pairwise, kTol);
  EXPECT_NEAR(got.mean_hardest, want.mean_hardest, kTol);
  EXPECT_NEAR(got.median_hardest, want.median_hardest, kTol);
}

TEST(CaptionSimilarity, TwoCaptionsByHand) {
  // {a:1, b:1} vs {a:1}: cosine 1/sqrt(2).
  const auto s = bag_of_words_stats({"a b", "A!"});
  EXPECT_EQ(s.count, 2);
  EXPECT_DOUBLE_EQ(s.mean_words, 1.5);
  EXPECT_NEAR(s.mean_pairwise, 1 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(s.mean_hardest, 1 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(s.median_hardest, 1 / std::sqrt(2.0), 1e-6);
}

TEST(CaptionSimilarity, MatchesBruteForceOnHandMadeCaptions) {
  const std::vector<std::string> captions = {
      "A large red circle on a grey background.",
      "A large red circle on a white background.",
      "a small blue square",
      "",    // no words: cosine 0 with everything
      "?!",  // punctuation only: no words either
      "red red red",
      "A large red circle on a grey background.",  // exact duplicate: hardest 1
  };
  const auto got = bag_of_words_stats(captions);
  expect_near_stats(got, brute_force(captions));
  EXPECT_NEAR(got.median_hardest, brute_force(captions).median_hardest, 1e-6);
}

TEST(CaptionSimilarity, MatchesBruteForceAcrossChunks) {
  // More captions than one row chunk (512), so the chunked path is exercised.
  const std::vector<std::string> vocab = {"red",   "blue", "circle", "square", "large",
                                          "small", "the",  "a",      "x"};
  std::mt19937_64 rng(7);
  std::vector<std::string> captions;
  for (int i = 0; i < 1100; ++i) {
    std::string c;
    const auto len = 1 + rng() % 12;
    for (uint64_t k = 0; k < len; ++k) c += vocab[rng() % vocab.size()] + " ";
    captions.push_back(c);
  }
  expect_near_stats(bag_of_words_stats(captions), brute_force(captions));
}

TEST(CaptionSimilarity, NeedsTwoCaptions) {
  EXPECT_THROW(bag_of_words_stats({}), std::invalid_argument);
  EXPECT_THROW(bag_of_words_stats({"one"}), std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
