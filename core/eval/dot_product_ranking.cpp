#include "eval/dot_product_ranking.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "eval/best_candidates.h"
#include "numeric/blas_threads.h"
#include "numeric/non_finite_values.h"

namespace hnclip {

namespace {

// Candidates per product: with ~2,000 queries per block the product runs at full speed, and one
// row's share of the scores (16 KB) stays in the core's cache for its scan.
constexpr int64_t kCandidatesPerTile = 4096;
// Scores kept inside a query's margin before it is ranked from its whole row instead.
constexpr size_t kMaxScoresInMargin = 1024;
// The margin around the estimated ground-truth score, relative to Σ|q_i c_i|: a float dot product
// of d terms is within about d·2⁻²⁴ of it at worst (3e-5 at d = 512), and in practice within
// 1e-7. A ground truth outside it is caught and ranked from its whole row.
constexpr double kMarginRelative = 4e-5;

// What one query carries from tile to tile.
struct QueryState {
  float lo = 0, hi = 0;                    // the margin around the estimated ground-truth score
  float best = -std::numeric_limits<float>::infinity();  // its ground truths' best product score
  int64_t above = 0;                       // candidates (ground truths too) scoring > hi
  int64_t positives_above = 0;             // the ground truths among them
  std::vector<float> inside;               // non-ground-truth scores in [lo, hi]
  bool overflowed = false;                 // more than kMaxScoresInMargin inside
  int64_t bad = -1;                        // the first candidate whose score is not finite
  BestCandidates top;                      // the best `keep` so far
};

// The margin: the ground truths' best score in double precision, widened by kMarginRelative of
// the largest Σ|q_i c_i| among them.
void set_margin(const float* q, const float* cand, int64_t d, const std::vector<int64_t>& pos,
                QueryState& s) {
  double best = -std::numeric_limits<double>::infinity(), scale = 0;
  for (int64_t p : pos) {
    const float* c = cand + p * d;
    double dot = 0, abs_sum = 0;
    for (int64_t i = 0; i < d; ++i) {
      const double term = static_cast<double>(q[i]) * c[i];
      dot += term;
      abs_sum += std::fabs(term);
    }
    best = std::max(best, dot);
    scale = std::max(scale, abs_sum);
  }
  const double margin = kMarginRelative * scale + std::numeric_limits<float>::denorm_min();
  // Rounded outwards, so that float rounding of the bounds cannot narrow the margin.
  s.lo = std::nextafter(static_cast<float>(best - margin), -std::numeric_limits<float>::infinity());
  s.hi = std::nextafter(static_cast<float>(best + margin), std::numeric_limits<float>::infinity());
}

bool is_positive(const std::vector<int64_t>& pos, int64_t c) {
  return std::find(pos.begin(), pos.end(), c) != pos.end();
}

// One query's scores against the candidates [c0, c0 + n).
void scan_tile(const float* row, int64_t c0, int64_t n, const std::vector<int64_t>& pos,
               QueryState& s) {
  for (int64_t p : pos) {
    if (p < c0 || p >= c0 + n) continue;
    s.best = std::max(s.best, row[p - c0]);
    s.positives_above += row[p - c0] > s.hi ? 1 : 0;
  }
  // One branch-free pass the compiler vectorises: above the margin, at or above its low end, and
  // not finite (NaN compares false). 32-bit counts (a tile is far below 2³¹): 64-bit ones made the
  // pass 5x slower (1.07 against 0.20 ns per score, SSE2).
  constexpr float kMax = std::numeric_limits<float>::max();
  int32_t above = 0, from_lo = 0, non_finite = 0;
  for (int32_t c = 0; c < static_cast<int32_t>(n); ++c) {
    above += row[c] > s.hi;
    from_lo += row[c] >= s.lo;
    non_finite += !(std::fabs(row[c]) <= kMax);
  }
  s.above += above;
  if (non_finite > 0 && s.bad < 0) {
    for (int64_t c = 0; c < n; ++c) {
      if (!(std::fabs(row[c]) <= kMax)) {
        s.bad = c0 + c;
        break;
      }
    }
  }
  if (from_lo > above && !s.overflowed) {
    for (int64_t c = 0; c < n; ++c) {
      if (row[c] >= s.lo && row[c] <= s.hi && !is_positive(pos, c0 + c)) {
        if (s.inside.size() == kMaxScoresInMargin) {
          s.overflowed = true;
          s.inside = {};
          break;
        }
        s.inside.push_back(row[c]);
      }
    }
  }
  s.top.offer(row, c0, n);  // candidates arrive in id order, tile after tile
}

// The rank from one whole row of scores, for a query the margin could not settle.
int64_t rank_from_row(const at::Tensor& query, const at::Tensor& candidates,
                      const std::vector<int64_t>& pos) {
  const auto scores = at::mm(query.unsqueeze(0), candidates.t()).contiguous();
  const float* row = scores.data_ptr<float>();
  float best = -std::numeric_limits<float>::infinity();
  for (int64_t p : pos) best = std::max(best, row[p]);
  int64_t ahead = 0;
  for (int64_t c = 0; c < scores.size(1); ++c) ahead += row[c] >= best;
  for (int64_t p : pos) ahead -= row[p] >= best ? 1 : 0;  // ground truths never count
  return 1 + ahead;
}

}  // namespace

void rank_dot_products(const at::Tensor& queries, const at::Tensor& candidates,
                       const std::vector<std::vector<int64_t>>& positives, int64_t keep,
                       int64_t max_chunk_elements, const std::string& direction,
                       RetrievalResult& result) {
  torch::NoGradGuard no_grad;
  const auto q_all = queries.contiguous();
  const auto cand = candidates.contiguous();
  const int64_t nq = q_all.size(0), nc = cand.size(0), d = q_all.size(1);
  result.ranks.assign(static_cast<size_t>(nq), 0);
  result.topk.assign(static_cast<size_t>(nq), {});
  if (nq == 0) return;
  // Each thread holds one block of rows x tile of scores; together at most max_chunk_elements.
  const int64_t threads = std::max(1, at::get_num_threads());
  const int64_t per_thread = std::max<int64_t>(1, max_chunk_elements / threads);
  const int64_t tile = std::max<int64_t>(1, std::min({nc, kCandidatesPerTile, per_thread}));
  const int64_t max_rows = std::max<int64_t>(1, per_thread / tile);
  // As many blocks per thread on every thread (at::parallel_for gives each thread a contiguous
  // range of blocks), each as large as the bound allows.
  const int64_t blocks = threads * ((nq + threads * max_rows - 1) / (threads * max_rows));
  const int64_t rows_per_block = (nq + blocks - 1) / blocks;
  const float* q_data = q_all.data_ptr<float>();
  const float* c_data = cand.data_ptr<float>();
  std::vector<int64_t> bad(static_cast<size_t>(nq), -1);
  std::vector<char> settle_by_row(static_cast<size_t>(nq), 0);

  const SingleThreadedBlas one_thread_per_product;  // the threads below are the parallelism
  at::parallel_for(0, blocks, 1, [&](int64_t block_from, int64_t block_to) {
    auto buffer = torch::empty({rows_per_block, tile}, torch::kFloat);
    std::vector<QueryState> states(static_cast<size_t>(rows_per_block));
    for (int64_t block = block_from; block < block_to; ++block) {
      const int64_t b0 = std::min(nq, block * rows_per_block);
      const int64_t b1 = std::min(nq, b0 + rows_per_block);
      if (b0 == b1) continue;
      const auto q_rows = q_all.slice(0, b0, b1);
      for (int64_t q = b0; q < b1; ++q) {
        auto& s = states[static_cast<size_t>(q - b0)];
        s = QueryState{};
        s.top.reset(keep);
        set_margin(q_data + q * d, c_data, d, positives[static_cast<size_t>(q)], s);
      }
      for (int64_t c0 = 0; c0 < nc; c0 += tile) {
        const int64_t n = std::min(tile, nc - c0);
        auto out = buffer.slice(0, 0, b1 - b0).slice(1, 0, n);  // rows of stride `tile`
        at::mm_out(out, q_rows, cand.slice(0, c0, c0 + n).t());
        const float* base = buffer.data_ptr<float>();
        for (int64_t q = b0; q < b1; ++q) {
          scan_tile(base + (q - b0) * tile, c0, n, positives[static_cast<size_t>(q)],
                    states[static_cast<size_t>(q - b0)]);
        }
      }
      for (int64_t q = b0; q < b1; ++q) {
        auto& s = states[static_cast<size_t>(q - b0)];
        bad[static_cast<size_t>(q)] = s.bad;
        if (s.bad >= 0) continue;
        s.top.ids(result.topk[static_cast<size_t>(q)]);
        if (s.overflowed || s.best < s.lo || s.best > s.hi) {
          settle_by_row[static_cast<size_t>(q)] = 1;
          continue;
        }
        // Above the margin means above the best ground truth; below it, below. Ground truths
        // above it were counted and are taken out; those inside it were never kept.
        int64_t ahead = s.above - s.positives_above;
        for (float v : s.inside) ahead += v >= s.best ? 1 : 0;
        result.ranks[static_cast<size_t>(q)] = 1 + ahead;
      }
    }
  });
  for (int64_t q = 0; q < nq; ++q) {
    if (bad[static_cast<size_t>(q)] >= 0) {
      throw NonFiniteError(direction + ": the score of query " + std::to_string(q) +
                           " against candidate " + std::to_string(bad[static_cast<size_t>(q)]) +
                           " is not finite; refusing to rank");
    }
  }
  for (int64_t q = 0; q < nq; ++q) {
    if (settle_by_row[static_cast<size_t>(q)]) {
      result.ranks[static_cast<size_t>(q)] =
          rank_from_row(q_all[q], cand, positives[static_cast<size_t>(q)]);
    }
  }
}

}  // namespace hnclip
