#include "eval/retrieval_metrics.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "eval/best_candidates.h"
#include "eval/dot_product_ranking.h"
#include "numeric/blas_threads.h"
#include "numeric/non_finite_values.h"

namespace hnclip {

namespace {
void refuse_non_finite(const torch::Tensor& features, const std::string& direction,
                       const std::string& role) {
  if (const auto bad = find_non_finite(features)) {
    throw NonFiniteError(direction + ": the feature of " + role + " " +
                         std::to_string(bad->first.empty() ? 0 : bad->first[0]) + " is not finite (" +
                         std::to_string(bad->nan) + " NaN and " + std::to_string(bad->infinite) +
                         " infinite value(s) among all " + role +
                         " features); refusing to rank: the model's weights or inputs are broken");
  }
}

// Query rows per call of the score function on the CPU (rank_scores: any score, e.g. caption
// consensus): few enough that each thread's scores (64 x C floats, 25.6 MB at 100k candidates)
// stay far below the chunk's.
constexpr int64_t kRowsPerProduct = 64;

void check_positives(int64_t nq, int64_t nc, const std::vector<std::vector<int64_t>>& positives) {
  if (static_cast<int64_t>(positives.size()) != nq) {
    throw std::invalid_argument("rank_retrieval: one positive list per query is required");
  }
  if (nc == 0) throw std::invalid_argument("rank_retrieval: no candidates");
  for (const auto& pos : positives) {
    if (pos.empty()) throw std::invalid_argument("rank_retrieval: query without ground truth");
    for (int64_t p : pos) {
      if (p < 0 || p >= nc) throw std::out_of_range("rank_retrieval: positive id out of range");
    }
  }
}

// Recall@K from the ranks: the share of queries ranked K or better, in percent.
void add_recall(RetrievalResult& result, const std::vector<int>& ks) {
  const auto nq = static_cast<int64_t>(result.ranks.size());
  for (int k : ks) {
    int64_t hits = 0;
    for (int64_t r : result.ranks) hits += r <= k ? 1 : 0;
    result.recall.emplace_back(k, nq == 0 ? 0.0 : 100.0 * static_cast<double>(hits) / nq);
  }
}

// What one pass over a query's row of scores finds.
struct RowScan {
  int64_t ahead = 0;     // non-ground-truth candidates scoring >= the best ground truth
  int64_t bad = -1;      // the first candidate whose score is not finite, -1 if none
};

// Counts candidates at or above `best` and finds the first non-finite score: a branch-free loop
// the compiler vectorises, reading the row once.
RowScan count_and_check(const float* row, int64_t n, float best) {
  int64_t ahead = 0, non_finite = 0;
  constexpr float kMax = std::numeric_limits<float>::max();
  for (int64_t c = 0; c < n; ++c) {
    ahead += row[c] >= best;
    non_finite += !(std::fabs(row[c]) <= kMax);  // NaN compares false
  }
  RowScan r;
  r.ahead = ahead;
  if (non_finite > 0) {
    for (int64_t c = 0; c < n; ++c) {
      if (!(std::fabs(row[c]) <= kMax)) {
        r.bad = c;
        break;
      }
    }
  }
  return r;
}

}  // namespace

RetrievalResult rank_retrieval(const at::Tensor& queries, const at::Tensor& candidates,
                               const std::vector<std::vector<int64_t>>& positives,
                               const std::string& direction, const RetrievalOptions& options) {
  torch::NoGradGuard no_grad;
  // Checked before anything reads the features: the CPU path indexes them by row and d itself.
  if (queries.dim() != 2 || candidates.dim() != 2 || queries.size(1) != candidates.size(1)) {
    throw std::invalid_argument(direction + ": queries [Q, d] and candidates [C, d] must share d (got " +
                                c10::str(queries.sizes()) + " and " + c10::str(candidates.sizes()) + ")");
  }
  const auto q_all = queries.detach().to(torch::kFloat);
  const auto cand = candidates.detach().to(torch::kFloat);  // [C, d], multiplied as its transpose
  // Refused, never ranked: a NaN score compares false with everything, so its ground truth would
  // count as first and garbage would score R@1 = 100%.
  refuse_non_finite(q_all, direction, "query");
  refuse_non_finite(cand, direction, "candidate");
  if (!(q_all.device().is_cpu() && cand.device().is_cpu())) {
    return rank_scores(
        queries.size(0), candidates.size(0),
        [&](int64_t from, int64_t to) { return torch::matmul(q_all.slice(0, from, to), cand.t()); },
        q_all.device(), positives, direction, options);
  }
  // On the CPU, tiles of queries x candidates (dot_product_ranking.h says why).
  check_positives(q_all.size(0), cand.size(0), positives);
  RetrievalResult result;
  result.direction = direction;
  rank_dot_products(q_all, cand, positives, std::min<int64_t>(options.topk, cand.size(0)),
                    options.max_chunk_elements, direction, result);
  add_recall(result, options.ks);
  return result;
}

RetrievalResult rank_scores(int64_t nq, int64_t nc, const ScoreRows& scores,
                            c10::Device device, const std::vector<std::vector<int64_t>>& positives,
                            const std::string& direction, const RetrievalOptions& options) {
  check_positives(nq, nc, positives);
  torch::NoGradGuard no_grad;
  const int64_t chunk = std::max<int64_t>(1, options.max_chunk_elements / nc);
  const int64_t keep = std::min<int64_t>(options.topk, nc);

  RetrievalResult result;
  result.direction = direction;
  result.ranks.resize(nq);
  result.topk.resize(nq);
  std::vector<int64_t> bad(static_cast<size_t>(std::min(chunk, nq)));
  // On the CPU each thread computes its own rows of the chunk (one BLAS call per thread: the
  // workbench keeps OpenBLAS single-threaded under LibTorch's threads, compute_setup.h, so one
  // large product would use one core) and scans them while they are in its cache. Elsewhere (CUDA)
  // the chunk's scores are computed on the device and scanned here.
  const bool on_cpu = device.is_cpu();
  for (int64_t start = 0; start < nq; start += chunk) {
    const int64_t end = std::min(nq, start + chunk);
    torch::Tensor device_scores;
    if (!on_cpu) device_scores = scores(start, end).to(torch::kFloat).cpu().contiguous();
    // Per query row, the rank count, the finiteness check and the top-k selection: one pass and a
    // second over a row still in cache (400 KB at 100k candidates) instead of three passes over
    // the whole chunk (a scan for non-finite values, torch::topk, the rank loop).
    const SingleThreadedBlas one_thread_per_product;  // the threads below are the parallelism
    at::parallel_for(start, end, 1, [&](int64_t from, int64_t to) {
      BestCandidates best_candidates;
      for (int64_t b0 = from; b0 < to; b0 += kRowsPerProduct) {
        const int64_t b1 = std::min(to, b0 + kRowsPerProduct);
        torch::Tensor block;
        const float* base;
        if (on_cpu) {
          block = scores(b0, b1).to(torch::kFloat).contiguous();  // [b1 - b0, C]
          base = block.data_ptr<float>();
        } else {
          base = device_scores.data_ptr<float>() + (b0 - start) * nc;
        }
        for (int64_t q = b0; q < b1; ++q) {
          const float* row = base + (q - b0) * nc;
          const auto& pos = positives[q];
          float best = -std::numeric_limits<float>::infinity();
          for (int64_t p : pos) best = std::max(best, row[p]);
          RowScan scan = count_and_check(row, nc, best);
          bad[q - start] = scan.bad;
          if (scan.bad >= 0) continue;
          for (int64_t p : pos) scan.ahead -= row[p] >= best ? 1 : 0;  // ground truths never count
          result.ranks[q] = 1 + scan.ahead;
          best_candidates.reset(keep);
          best_candidates.offer(row, 0, nc);
          best_candidates.ids(result.topk[q]);
        }
      }
    });
    // Finite features can still overflow to ±inf in a dot product: the first such score, in
    // query order, is named.
    for (int64_t q = start; q < end; ++q) {
      if (bad[q - start] >= 0) {
        throw NonFiniteError(direction + ": the score of query " + std::to_string(q) +
                             " against candidate " + std::to_string(bad[q - start]) +
                             " is not finite; refusing to rank");
      }
    }
  }
  add_recall(result, options.ks);
  return result;
}

}  // namespace hnclip
