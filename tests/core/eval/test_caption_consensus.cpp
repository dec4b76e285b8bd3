// Tests core/eval/caption_consensus: the fused scores against a loop written from the formula,
// that the query caption never votes for its own image, the leave-one-out fallback, α = 0 equal
// to the plain ranking, and chunking that splits the queries unevenly.

#include "eval/caption_consensus.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "numeric/non_finite_values.h"

namespace hnclip {
namespace {

torch::Tensor unit_rows(torch::Tensor x) {
  return torch::nn::functional::normalize(x, torch::nn::functional::NormalizeFuncOptions().dim(1));
}

// 1, 2 or 3 captions per image, each near its image; image i's captions are consecutive.
struct Split {
  torch::Tensor images, captions;
  std::vector<int64_t> caption_image;
};

Split make_split(int64_t n_images, int64_t d, double noise, uint64_t seed) {
  torch::manual_seed(seed);
  Split s;
  s.images = unit_rows(torch::randn({n_images, d}));
  std::vector<torch::Tensor> caps;
  for (int64_t i = 0; i < n_images; ++i) {
    for (int64_t k = 0; k < 1 + i % 3; ++k) {
      s.caption_image.push_back(i);
      caps.push_back(s.images[i] + noise * torch::randn({d}));
    }
  }
  s.captions = unit_rows(torch::stack(caps));
  return s;
}

TEST(CaptionConsensus, FusedScoresFollowTheFormulaWithoutTheQueryItself) {
  const auto s = make_split(11, 6, 0.8, 3);
  const int64_t nc = s.captions.size(0), ni = s.images.size(0);
  const double alpha = 0.3;
  const auto fused = caption_consensus_scores(s.captions, s.images, s.caption_image, alpha, 0, nc);
  ASSERT_EQ(fused.sizes(), (std::vector<int64_t>{nc, ni}));
  const auto acc = fused.accessor<float, 2>();
  for (int64_t q = 0; q < nc; ++q) {
    for (int64_t i = 0; i < ni; ++i) {
      const double image_score = s.captions[q].dot(s.images[i]).item<double>();
      double sum = 0;
      int n = 0;
      for (int64_t c = 0; c < nc; ++c) {
        if (s.caption_image[c] != i || c == q) continue;
        sum += s.captions[q].dot(s.captions[c]).item<double>();
        ++n;
      }
      const double expected = n == 0 ? image_score : (1 - alpha) * image_score + alpha * sum / n;
      EXPECT_NEAR(acc[q][i], expected, 1e-5) << "query " << q << ", image " << i;
    }
  }
  // Rows asked for in pieces are the same rows.
  const auto piece = caption_consensus_scores(s.captions, s.images, s.caption_image, alpha, 5, 9);
  EXPECT_TRUE(torch::allclose(piece, fused.slice(0, 5, 9), 0, 1e-6));
}

// Images that say nothing and two unrelated random captions per image: if the query caption
// voted for its own image (⟨q, q⟩ = 1 beside ~0 for every other caption), α = 1 would rank its
// image first every time. Without it the fused scores are unrelated to the answer.
TEST(CaptionConsensus, TheQueryCaptionNeverVotesForItsOwnImage) {
  torch::manual_seed(5);
  const int64_t n_images = 200, d = 64;
  const auto images = unit_rows(torch::randn({n_images, d}));
  const auto captions = unit_rows(torch::randn({2 * n_images, d}));
  std::vector<int64_t> caption_image;
  for (int64_t i = 0; i < n_images; ++i) caption_image.insert(caption_image.end(), {i, i});
  const auto r = rank_with_caption_consensus(captions, images, caption_image, 1.0);
  EXPECT_EQ(r.direction, "t2i_consensus");
  EXPECT_LT(r.recall_at(1), 5.0);  // chance is 0.5%; self-voting would give 100%
  EXPECT_LT(r.recall_at(10), 20.0);
}

// The query's sibling caption is a copy of it: consensus finds its image even though the image
// features carry no information, which is what the fusion is for.
TEST(CaptionConsensus, AgreeingSiblingCaptionsPullTheirImageUp) {
  torch::manual_seed(6);
  const int64_t n_images = 100, d = 64;
  const auto images = unit_rows(torch::randn({n_images, d}));
  const auto one = unit_rows(torch::randn({n_images, d}));
  const auto captions = torch::stack({one, one}, 1).reshape({2 * n_images, d});
  std::vector<int64_t> caption_image;
  for (int64_t i = 0; i < n_images; ++i) caption_image.insert(caption_image.end(), {i, i});
  const auto plain = rank_with_caption_consensus(captions, images, caption_image, 0.0);
  const auto fused = rank_with_caption_consensus(captions, images, caption_image, 0.5);
  EXPECT_LT(plain.recall_at(1), 10.0);
  EXPECT_DOUBLE_EQ(fused.recall_at(1), 100.0);
}

// One caption per image (leave-one-out): the own image keeps its image score; another image is
// fused with its caption. With α = 1 a query whose caption is far from every other caption but
// whose image is the best match still ranks first.
TEST(CaptionConsensus, ImagesWithoutOtherCaptionsKeepTheirImageScore) {
  const auto images = unit_rows(torch::tensor({{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}}));
  const auto captions = unit_rows(torch::tensor({{0.9f, 0.1f, 0.0f}, {-1.0f, 0.2f, 0.0f}}));
  const std::vector<int64_t> caption_image{0, 1};
  EXPECT_EQ(captions_without_siblings(caption_image, 2), 2);
  const auto fused = caption_consensus_scores(captions, images, caption_image, 1.0, 0, 2);
  EXPECT_NEAR(fused[0][0].item<double>(), captions[0].dot(images[0]).item<double>(), 1e-6);
  EXPECT_NEAR(fused[0][1].item<double>(), captions[0].dot(captions[1]).item<double>(), 1e-6);
  const auto r = rank_with_caption_consensus(captions, images, caption_image, 1.0);
  EXPECT_EQ(r.ranks[0], 1);
}

TEST(CaptionConsensus, AlphaZeroIsThePlainRankingAtAnyChunkSize) {
  const auto s = make_split(37, 8, 1.5, 9);
  std::vector<std::vector<int64_t>> truth;
  for (int64_t i : s.caption_image) truth.push_back({i});
  const auto plain = rank_retrieval(s.captions, s.images, truth, "t2i");
  for (int64_t chunk : {int64_t{7}, int64_t{150}, int64_t{1} << 20}) {
    RetrievalOptions opt;
    opt.max_chunk_elements = chunk;
    const auto zero = rank_with_caption_consensus(s.captions, s.images, s.caption_image, 0.0, opt);
    EXPECT_EQ(zero.ranks, plain.ranks) << "chunk " << chunk;
    EXPECT_EQ(zero.topk, plain.topk) << "chunk " << chunk;
    // Fused rankings do not depend on the chunking either.
    const auto a = rank_with_caption_consensus(s.captions, s.images, s.caption_image, 0.4, opt);
    const auto b = rank_with_caption_consensus(s.captions, s.images, s.caption_image, 0.4);
    EXPECT_EQ(a.ranks, b.ranks) << "chunk " << chunk;
  }
}

TEST(CaptionConsensus, RefusesAWeightOutsideZeroToOneAndBadIds) {
  const auto s = make_split(4, 3, 0.5, 1);
  for (double bad : {-0.1, 1.5, std::nan("")}) {
    EXPECT_THROW(rank_with_caption_consensus(s.captions, s.images, s.caption_image, bad),
                 std::invalid_argument);
  }
  auto ids = s.caption_image;
  ids[0] = 4;
  EXPECT_THROW(rank_with_caption_consensus(s.captions, s.images, ids, 0.5), std::out_of_range);
  ids.pop_back();
  EXPECT_THROW(rank_with_caption_consensus(s.captions, s.images, ids, 0.5), std::invalid_argument);
}

TEST(CaptionConsensus, ANonFiniteCaptionIsRefusedNotRanked) {
  auto s = make_split(5, 3, 0.5, 2);
  s.captions[2][1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(rank_with_caption_consensus(s.captions, s.images, s.caption_image, 0.5),
               NonFiniteError);
}

}  // namespace
}  // namespace hnclip
