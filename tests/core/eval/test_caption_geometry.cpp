// Chunked caption geometry against a brute-force computation over the full matrix (in double
// precision, so histogram bins of both paths agree exactly).

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "eval/caption_geometry.h"

namespace hnclip {
namespace {

struct BruteForce {
  std::vector<int64_t> pairwise_hist, hardest_hist;
  double mean_pairwise = 0, mean_hardest = 0;
  std::vector<double> hardest;
  std::array<int64_t, kGeometryBuckets> buckets{};
  std::vector<NearDuplicatePair> pairs;  // all i<j, best first
  std::vector<std::vector<int64_t>> nearest;
};

BruteForce brute_force(const torch::Tensor& f, int64_t bins) {
  const int64_t n = f.size(0);
  const auto s = torch::matmul(f, f.t()).contiguous();
  const auto a = s.accessor<double, 2>();
  BruteForce b;
  b.pairwise_hist.assign(bins, 0);
  b.hardest_hist.assign(bins, 0);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double best = -1e9;
    std::vector<int64_t> order;
    for (int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      order.push_back(j);
      best = std::max(best, a[i][j]);
      ++b.buckets[static_cast<size_t>(geometry_bucket(a[i][j]))];
      if (j > i) {
        sum += a[i][j];
        ++b.pairwise_hist[geometry_bin(a[i][j], bins)];
        b.pairs.push_back({i, j, a[i][j]});
      }
    }
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return a[i][x] > a[i][y]; });
    b.nearest.push_back(order);
    b.hardest.push_back(best);
    ++b.hardest_hist[geometry_bin(best, bins)];
  }
  b.mean_pairwise = sum / (n * (n - 1) / 2.0);
  b.mean_hardest = std::accumulate(b.hardest.begin(), b.hardest.end(), 0.0) / n;
  std::sort(b.pairs.begin(), b.pairs.end(),
            [](const auto& x, const auto& y) { return x.cosine > y.cosine; });
  return b;
}

// Random unit vectors around a few centres, so that every hardness bucket is populated.
torch::Tensor clustered_features(int64_t n, int64_t d, uint64_t seed) {
  torch::manual_seed(seed);
  const auto centres = torch::randn({4, d}, torch::kDouble);
  const auto which = torch::randint(0, 4, {n}, torch::kLong);
  const auto spread = torch::rand({n, 1}, torch::kDouble) * 1.5;
  auto f = centres.index_select(0, which) + spread * torch::randn({n, d}, torch::kDouble);
  return torch::nn::functional::normalize(f, torch::nn::functional::NormalizeFuncOptions().dim(1));
}

TEST(CaptionGeometry, ChunkedEqualsBruteForce) {
  const int64_t n = 61, d = 8;
  const auto f = clustered_features(n, d, 7);
  CaptionGeometryOptions opt;
  opt.bins = 40;
  opt.neighbors = 4;
  opt.top_pairs = 25;
  opt.batch_size = 16;
  opt.max_chunk_elements = 3 * n + 1;  // 3 rows per chunk: 21 chunks, last one short
  const auto g = compute_caption_geometry(f, opt);
  const auto b = brute_force(f, opt.bins);

  EXPECT_EQ(g.count, n);
  EXPECT_EQ(g.pairwise_histogram, b.pairwise_hist);
  EXPECT_EQ(g.hardest_histogram, b.hardest_hist);
  EXPECT_EQ(std::accumulate(g.pairwise_histogram.begin(), g.pairwise_histogram.end(), int64_t{0}),
            n * (n - 1) / 2);
  EXPECT_NEAR(g.mean_pairwise, b.mean_pairwise, 1e-12);
  EXPECT_NEAR(g.mean_hardest, b.mean_hardest, 1e-12);
  ASSERT_EQ(g.hardest.size(), b.hardest.size());
  for (size_t i = 0; i < b.hardest.size(); ++i) EXPECT_NEAR(g.hardest[i], b.hardest[i], 1e-12) << i;
  auto sorted = b.hardest;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NEAR(g.median_hardest, sorted[n / 2], 1e-12);  // n odd

  // Buckets: the fraction over ordered pairs i != j, equal to brute force, summing to 1.
  double total = 0;
  int populated = 0;
  for (int k = 0; k < kGeometryBuckets; ++k) {
    EXPECT_EQ(g.bucket_counts[k], b.buckets[k]) << geometry_bucket_names()[k];
    EXPECT_DOUBLE_EQ(g.bucket_fractions[k], static_cast<double>(b.buckets[k]) / (n * (n - 1)));
    total += g.bucket_fractions[k];
    populated += b.buckets[k] > 0;
  }
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_GE(populated, 3) << "fixture should spread over the buckets";
  const auto per_batch = g.expected_batch_counts();
  EXPECT_NEAR(std::accumulate(per_batch.begin(), per_batch.end(), 0.0), 16.0 * 15.0, 1e-9);

  ASSERT_EQ(g.top_pairs.size(), 25u);
  for (size_t p = 0; p < g.top_pairs.size(); ++p) {
    EXPECT_EQ(g.top_pairs[p].a, b.pairs[p].a) << p;
    EXPECT_EQ(g.top_pairs[p].b, b.pairs[p].b) << p;
    EXPECT_NEAR(g.top_pairs[p].cosine, b.pairs[p].cosine, 1e-12);
    EXPECT_LT(g.top_pairs[p].a, g.top_pairs[p].b);
  }

  ASSERT_EQ(g.neighbors.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(g.neighbors[i].size(), 4u);
    for (int64_t r = 0; r < 4; ++r) {
      EXPECT_EQ(g.neighbors[i][r].index, b.nearest[i][r]) << "caption " << i << " rank " << r;
      EXPECT_NE(g.neighbors[i][r].index, i);
    }
    EXPECT_DOUBLE_EQ(g.neighbors[i][0].cosine, g.hardest[i]);
  }

  // One chunk holding everything gives the same numbers.
  opt.max_chunk_elements = 16 << 20;
  const auto whole = compute_caption_geometry(f, opt);
  EXPECT_EQ(whole.pairwise_histogram, g.pairwise_histogram);
  EXPECT_EQ(whole.bucket_counts, g.bucket_counts);
}

// Each thread computes its rows' cosines 64 at a time into one block made before the loop and
// reused: with 300 captions on two threads each thread fills it three times, the last time
// partly. Every block must hold only its own rows' cosines.
TEST(CaptionGeometry, ReusedProductBlocksEqualBruteForce) {
  const int previous_threads = at::get_num_threads();
  at::set_num_threads(2);
  const int64_t n = 300, d = 8;
  const auto f = clustered_features(n, d, 11);
  CaptionGeometryOptions opt;
  opt.bins = 40;
  opt.neighbors = 3;
  opt.top_pairs = 10;
  const auto g = compute_caption_geometry(f, opt);
  at::set_num_threads(previous_threads);
  const auto b = brute_force(f, opt.bins);
  EXPECT_EQ(g.pairwise_histogram, b.pairwise_hist);
  EXPECT_EQ(g.hardest_histogram, b.hardest_hist);
  for (int k = 0; k < kGeometryBuckets; ++k) EXPECT_EQ(g.bucket_counts[k], b.buckets[k]);
  ASSERT_EQ(g.hardest.size(), b.hardest.size());
  for (size_t i = 0; i < b.hardest.size(); ++i) EXPECT_NEAR(g.hardest[i], b.hardest[i], 1e-12) << i;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(g.neighbors[i].size(), 3u);
    for (int64_t r = 0; r < 3; ++r)
      EXPECT_EQ(g.neighbors[i][r].index, b.nearest[i][r]) << "caption " << i << " rank " << r;
  }
  ASSERT_EQ(g.top_pairs.size(), 10u);
  for (size_t p = 0; p < g.top_pairs.size(); ++p) {
    EXPECT_EQ(g.top_pairs[p].a, b.pairs[p].a) << p;
    EXPECT_EQ(g.top_pairs[p].b, b.pairs[p].b) << p;
  }
}

TEST(CaptionGeometry, HandMadeBucketsAndDuplicates) {
  // Three captions: 0 and 1 identical (cosine 1), 2 orthogonal to both.
  const auto f = torch::tensor({1.0, 0.0, 1.0, 0.0, 0.0, 1.0}, torch::kDouble).reshape({3, 2});
  CaptionGeometryOptions opt;
  opt.neighbors = 5;  // clipped to N-1 = 2
  const auto g = compute_caption_geometry(f, opt);
  EXPECT_EQ(g.bucket_counts[0], 4);  // (0,2),(2,0),(1,2),(2,1)
  EXPECT_EQ(g.bucket_counts[4], 2);  // (0,1),(1,0)
  EXPECT_NEAR(g.bucket_fractions[4], 1.0 / 3.0, 1e-12);
  ASSERT_FALSE(g.top_pairs.empty());
  EXPECT_EQ(g.top_pairs[0].a, 0);
  EXPECT_EQ(g.top_pairs[0].b, 1);
  EXPECT_EQ(g.top_pairs.size(), 3u);
  EXPECT_EQ(g.neighbors[0].size(), 2u);
  EXPECT_EQ(g.neighbors[0][0].index, 1);
  EXPECT_NEAR(g.mean_pairwise, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(g.median_hardest, 1.0, 1e-12);
}

TEST(CaptionGeometry, CosineOnABucketEdgeCountsInTheUpperBucket) {
  // cos = 0.5 exactly: the "0.5-0.7" bucket, as geometry_bucket says (and the pair histogram bin
  // 75).
  const auto f = torch::tensor({1.0, 0.0, 0.5, std::sqrt(0.75)}, torch::kDouble).reshape({2, 2});
  const auto g = compute_caption_geometry(f, {});
  EXPECT_EQ(g.bucket_counts[0], 0);
  EXPECT_EQ(g.bucket_counts[1], 2);
  EXPECT_EQ(g.pairwise_histogram[75], 1);
}

TEST(CaptionGeometry, RefusesFewerThanTwoCaptions) {
  EXPECT_THROW(compute_caption_geometry(torch::ones({1, 4})), std::invalid_argument);
}

TEST(CaptionGeometry, BucketEdges) {
  EXPECT_EQ(geometry_bucket(0.4999), 0);
  EXPECT_EQ(geometry_bucket(0.5), 1);
  EXPECT_EQ(geometry_bucket(0.7), 2);
  EXPECT_EQ(geometry_bucket(0.8), 3);
  EXPECT_EQ(geometry_bucket(0.9), 4);
  EXPECT_EQ(geometry_bin(-1.0, 100), 0);
  EXPECT_EQ(geometry_bin(1.0, 100), 99);
  EXPECT_EQ(geometry_bin(0.0, 100), 50);
}

}  // namespace
}  // namespace hnclip
