#pragma once
// CaptionGeometry: how alike the captions of a split are under a text encoder (paper Table A1,
// Fig. 1/A5/A6) — the distribution of all pairwise cosines, each caption's hardest neighbour, the
// hardness of in-batch negatives, the top near-duplicate pairs and every caption's k nearest
// other captions. Computed in row chunks: memory is O(chunk x N), never the N x N matrix.
// Threading: a pure function; the result is a plain value (no LibTorch types).

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

// Hardness buckets of a negative's cosine: <0.5, [0.5,0.7), [0.7,0.8), [0.8,0.9), >=0.9.
constexpr int kGeometryBuckets = 5;
const std::array<std::string, kGeometryBuckets>& geometry_bucket_names();  // "<0.5", "0.5-0.7", ...
int geometry_bucket(double cosine);

struct CaptionGeometryOptions {
  int64_t bins = 100;                        // histogram bins over [-1, 1]
  int64_t neighbors = 5;                     // k nearest other captions per caption (clipped to N-1)
  int64_t top_pairs = 100;                   // near-duplicate pairs kept
  int64_t batch_size = 128;                  // B of the in-batch negatives' composition
  int64_t max_chunk_elements = 16 << 20;     // cosines held at once (rows x N)
  // Called after each row chunk with the fraction of rows done (0, 1]. It may throw to abandon
  // the computation (the workbench's Cancel): the exception propagates out unchanged.
  std::function<void(double)> on_chunk;
};

struct GeometryNeighbor {
  int64_t index = 0;
  double cosine = 0;
};

struct NearDuplicatePair {
  int64_t a = 0;  // a < b
  int64_t b = 0;
  double cosine = 0;
};

struct CaptionGeometry {
  int64_t count = 0;                          // captions N
  int64_t batch_size = 0;
  std::vector<int64_t> pairwise_histogram;    // pairs i<j, `bins` equal bins over [-1, 1]
  double mean_pairwise = 0;                   // over pairs i<j
  std::vector<double> hardest;                // per caption: max cosine over j != i
  std::vector<int64_t> hardest_histogram;     // same bins
  double mean_hardest = 0;
  double median_hardest = 0;                  // mean of the middle two for even N
  std::array<int64_t, kGeometryBuckets> bucket_counts{};     // over ordered pairs i != j
  std::array<double, kGeometryBuckets> bucket_fractions{};   // bucket_counts / (N(N-1)); sum 1
  std::vector<NearDuplicatePair> top_pairs;   // highest cosine first (ties: smaller a, then b)
  std::vector<std::vector<GeometryNeighbor>> neighbors;  // per caption, nearest first

  // Expected negatives per bucket in one random batch of batch_size: fraction x B(B-1), so the
  // five numbers sum to B(B-1) (ordered negative pairs of a batch).
  std::array<double, kGeometryBuckets> expected_batch_counts() const;
};

// Histogram bin of a cosine: floor((c + 1) * (bins / 2)), clamped to [0, bins-1].
int64_t geometry_bin(double cosine, int64_t bins);

// `features`: [N, d] caption features (L2-normalised; float or double, any device), N >= 2.
// Throws std::invalid_argument for N < 2 or bad options.
CaptionGeometry compute_caption_geometry(const at::Tensor& features,
                                         const CaptionGeometryOptions& options = {});

}  // namespace hnclip
