// Tests core/eval/retrieval_metrics against a brute-force reference that sorts every candidate
// list (ties placed ahead of the ground truth), with deliberate ties, multi-caption images and
// chunk sizes that split the queries unevenly.

#include "eval/retrieval_metrics.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <limits>
#include <set>

#include "numeric/non_finite_values.h"

namespace hnclip {
namespace {

// Rank by sorting: candidates ordered by score (desc), and among equal scores non-ground-truth
// first — so a tie counts against the query. The rank is the first ground truth's position.
int64_t brute_force_rank(const std::vector<float>& scores, const std::set<int64_t>& truth) {
  std::vector<int64_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (scores[a] != scores[b]) return scores[a] > scores[b];
    return truth.count(a) < truth.count(b);
  });
  for (size_t i = 0; i < order.size(); ++i)
    if (truth.count(order[i])) return static_cast<int64_t>(i) + 1;
  return -1;
}

TEST(RetrievalMetrics, MatchesBruteForceWithTiesAndMultiCaptionImages) {
  torch::manual_seed(11);
  const int64_t n_images = 37, d = 4;
  // Quantised features make many exact score ties.
  auto images = torch::randint(-2, 3, {n_images, d}).to(torch::kFloat);
  std::vector<int64_t> caption_image;
  std::vector<std::vector<int64_t>> image_captions(n_images);
  std::vector<torch::Tensor> caps;
  for (int64_t i = 0; i < n_images; ++i) {
    const int64_t n = 1 + (i % 3);  // 1, 2 or 3 captions per image
    for (int64_t k = 0; k < n; ++k) {
      image_captions[i].push_back(static_cast<int64_t>(caption_image.size()));
      caption_image.push_back(i);
      caps.push_back(images[i] + torch::randint(-1, 2, {d}).to(torch::kFloat));
    }
  }
  auto captions = torch::stack(caps);

  for (int64_t chunk_elements : {int64_t{7}, int64_t{100}, int64_t{1} << 20}) {
    RetrievalOptions opt;
    opt.max_chunk_elements = chunk_elements;
    std::vector<std::vector<int64_t>> t2i_truth;
    for (auto img : caption_image) t2i_truth.push_back({img});
    auto t2i = rank_retrieval(captions, images, t2i_truth, "t2i", opt);
    auto i2t = rank_retrieval(images, captions, image_captions, "i2t", opt);

    auto scores_t2i = torch::matmul(captions, images.t());
    for (int64_t q = 0; q < captions.size(0); ++q) {
      auto row = scores_t2i[q].contiguous();
      std::vector<float> s(row.data_ptr<float>(), row.data_ptr<float>() + row.numel());
      ASSERT_EQ(t2i.ranks[q], brute_force_rank(s, {caption_image[q]})) << "t2i query " << q;
      // The top candidates, best first, equal scores in candidate order (deterministic).
      std::vector<int64_t> order(s.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return s[a] > s[b]; });
      order.resize(10);
      ASSERT_EQ(t2i.topk[q], order) << "t2i query " << q;
    }
    auto scores_i2t = torch::matmul(images, captions.t());
    for (int64_t q = 0; q < n_images; ++q) {
      auto row = scores_i2t[q].contiguous();
      std::vector<float> s(row.data_ptr<float>(), row.data_ptr<float>() + row.numel());
      std::set<int64_t> truth(image_captions[q].begin(), image_captions[q].end());
      ASSERT_EQ(i2t.ranks[q], brute_force_rank(s, truth)) << "i2t query " << q;
    }
    for (const auto* r : {&t2i, &i2t}) {
      for (const auto& [k, recall] : r->recall) {
        const auto hits =
            std::count_if(r->ranks.begin(), r->ranks.end(), [&](int64_t x) { return x <= k; });
        EXPECT_DOUBLE_EQ(recall, 100.0 * hits / r->ranks.size());
      }
    }
  }
}

// The CPU's tiled ranking (dot_product_ranking.h) on more candidates than one tile, on two
// threads, with exact ties: small integer features make every score exact in any summation order,
// so the reference's scores and the products' are the same numbers. Ties with a ground truth come
// by the dozen (counted against the query from inside the margin), and one ground truth has 1,500
// exact copies among the candidates: more than a margin keeps, so that query is ranked from its
// whole row. Chunk bounds that make tiles of every candidate count and one row per block.
TEST(RetrievalMetrics, TiledRankingMatchesBruteForceWithExactTiesOnTwoThreads) {
  const int threads_before = at::get_num_threads();
  at::set_num_threads(2);
  torch::manual_seed(29);
  const int64_t nc = 9000, nq = 240, d = 32;
  auto candidates = torch::randint(-8, 9, {nc, d}).to(torch::kFloat);
  std::vector<std::vector<int64_t>> truth(nq);
  std::vector<torch::Tensor> rows;
  for (int64_t q = 0; q < nq; ++q) {
    truth[q] = {(q * 29) % 6000};
    if (q % 3 == 0) truth[q].push_back(6000 + q);  // a second ground truth
    rows.push_back(candidates[truth[q][0]] + torch::randint(-2, 3, {d}).to(torch::kFloat));
  }
  auto queries = torch::stack(rows);
  // 1,500 exact copies of query 7's ground truth (ids 7000-8499), each tying with it.
  candidates.slice(0, 7000, 8500).copy_(candidates[truth[7][0]].expand({1500, d}));
  const auto scores = torch::matmul(queries, candidates.t());
  for (int64_t chunk_elements : {int64_t{1} << 24, int64_t{5000}, int64_t{9001}}) {
    RetrievalOptions opt;
    opt.max_chunk_elements = chunk_elements;
    opt.topk = 20;
    const auto r = rank_retrieval(queries, candidates, truth, "t2i", opt);
    for (int64_t q = 0; q < nq; ++q) {
      auto row = scores[q].contiguous();
      std::vector<float> s(row.data_ptr<float>(), row.data_ptr<float>() + row.numel());
      ASSERT_EQ(r.ranks[q], brute_force_rank(s, {truth[q].begin(), truth[q].end()}))
          << "query " << q << ", chunk " << chunk_elements;
      std::vector<int64_t> order(s.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return s[a] > s[b]; });
      order.resize(20);
      ASSERT_EQ(r.topk[q], order) << "query " << q << ", chunk " << chunk_elements;
    }
  }
  // Query 7 is ranked behind every copy of its ground truth.
  RetrievalOptions opt;
  EXPECT_GT(rank_retrieval(queries, candidates, truth, "t2i", opt).ranks[7], 1500);
  at::set_num_threads(threads_before);
}

TEST(RetrievalMetrics, TieWithTheGroundTruthCountsAgainstTheQuery) {
  // Query scores 1 with both candidates; the ground truth is candidate 1: rank 2, R@1 = 0.
  auto q = torch::tensor({{1.0f, 0.0f}});
  auto c = torch::tensor({{1.0f, 0.0f}, {1.0f, 0.0f}});
  auto r = rank_retrieval(q, c, {{1}}, "t2i");
  EXPECT_EQ(r.ranks[0], 2);
  EXPECT_DOUBLE_EQ(r.recall_at(1), 0.0);
  EXPECT_DOUBLE_EQ(r.recall_at(5), 100.0);
  EXPECT_THROW(r.recall_at(3), std::out_of_range);
}

TEST(RetrievalMetrics, AnyCaptionOfAnImageIsAHit) {
  auto q = torch::tensor({{1.0f, 0.0f}});
  auto c = torch::tensor({{0.0f, 1.0f}, {0.9f, 0.1f}, {1.0f, 0.0f}});
  auto r = rank_retrieval(q, c, {{0, 2}}, "i2t");
  EXPECT_EQ(r.ranks[0], 1);  // candidate 2 is a ground truth and scores best
  auto r2 = rank_retrieval(q, c, {{0}}, "i2t");
  EXPECT_EQ(r2.ranks[0], 3);
}

TEST(RetrievalMetrics, RejectsInconsistentInput) {
  auto q = torch::ones({2, 3});
  EXPECT_THROW(rank_retrieval(q, q, {{0}}, "t2i"), std::invalid_argument);
  EXPECT_THROW(rank_retrieval(q, q, {{0}, {}}, "t2i"), std::invalid_argument);
  EXPECT_THROW(rank_retrieval(q, q, {{0}, {5}}, "t2i"), std::out_of_range);
  // Features of different widths are refused before anything reads them (the CPU path indexes
  // the candidates by row itself), naming both shapes.
  try {
    rank_retrieval(q, torch::zeros({2, 4}), {{0}, {1}}, "t2i");
    ADD_FAILURE() << "ranked features of different widths";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 3] and [2, 4]"), std::string::npos) << e.what();
  }
}

// A NaN score compares false with everything: unguarded, the ground truth ranks first and a
// broken model scores R@1 = 100%. Planted NaN / inf features and an overflowing score are refused
// naming the direction and the index.
TEST(RetrievalMetrics, NonFiniteFeaturesAndScoresAreRefusedNotRanked) {
  torch::manual_seed(3);
  const auto features = torch::nn::functional::normalize(
      torch::randn({6, 4}), torch::nn::functional::NormalizeFuncOptions().dim(-1));
  std::vector<std::vector<int64_t>> truth;
  for (int64_t i = 0; i < 6; ++i) truth.push_back({i});
  auto expect_refused = [&](const torch::Tensor& q, const torch::Tensor& c, const std::string& needle) {
    try {
      rank_retrieval(q, c, truth, "t2i");
      ADD_FAILURE() << "ranked non-finite input (" << needle << ")";
    } catch (const NonFiniteError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("t2i"), std::string::npos) << msg;
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    }
  };
  auto nan_candidates = features.clone();
  nan_candidates.fill_(std::numeric_limits<float>::quiet_NaN());  // every score NaN
  expect_refused(features, nan_candidates, "candidate 0");
  auto inf_query = features.clone();
  inf_query[4][2] = std::numeric_limits<float>::infinity();
  expect_refused(inf_query, features, "query 4");
  // Finite features whose dot product overflows float: the score is refused, not the feature.
  auto huge = features.clone();
  huge[3].fill_(1e30f);
  expect_refused(huge, huge, "the score of query 3");
  // The unguarded rule would have ranked every NaN ground truth first.
  EXPECT_EQ(rank_retrieval(features, features, truth, "t2i").recall.size(), 5u);
}

}  // namespace
}  // namespace hnclip
