#include "eval/retrieval_metrics.h"

#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

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
}  // namespace

RetrievalResult rank_retrieval(const at::Tensor& queries, const at::Tensor& candidates,
                               const std::vector<std::vector<int64_t>>& positives,
                               const std::string& direction, const RetrievalOptions& options) {
  const int64_t nq = queries.size(0), nc = candidates.size(0);
  if (static_cast<int64_t>(positives.size()) != nq) {
    throw std::invalid_argument("rank_retrieval: one positive list per query is required");
  }
  if (nc == 0) throw std::invalid_argument("rank_retrieval: no candidates");
  torch::NoGradGuard no_grad;
  const auto cand_t = candidates.detach().to(torch::kFloat).t().contiguous();  // [d, C]
  const auto q_all = queries.detach().to(torch::kFloat);
  // Refused, never ranked: a NaN score compares false with everything, so its ground truth would
  // count as first and garbage would score R@1 = 100%.
  refuse_non_finite(q_all, direction, "query");
  refuse_non_finite(candidates.detach().to(torch::kFloat), direction, "candidate");
  const int64_t chunk = std::max<int64_t>(1, options.max_chunk_elements / nc);
  const int64_t keep = std::min<int64_t>(options.topk, nc);

  RetrievalResult result;
  result.direction = direction;
  result.ranks.resize(nq);
  result.topk.resize(nq);
  for (int64_t start = 0; start < nq; start += chunk) {
    const int64_t end = std::min(nq, start + chunk);
    const auto scores = torch::matmul(q_all.slice(0, start, end), cand_t).cpu().contiguous();  // [c, C]
    // Finite features can still overflow to ±inf in a dot product.
    if (const auto bad = find_non_finite(scores)) {
      throw NonFiniteError(direction + ": the score of query " + std::to_string(start + bad->first[0]) +
                           " against candidate " + std::to_string(bad->first[1]) +
                           " is not finite; refusing to rank");
    }
    const auto top = std::get<1>(scores.topk(keep, 1, /*largest=*/true, /*sorted=*/true)).contiguous();
    const float* s = scores.data_ptr<float>();
    const int64_t* t = top.data_ptr<int64_t>();
    for (int64_t q = start; q < end; ++q) {
      const float* row = s + (q - start) * nc;
      const auto& pos = positives[q];
      if (pos.empty()) throw std::invalid_argument("rank_retrieval: query without ground truth");
      float best = -std::numeric_limits<float>::infinity();
      for (int64_t p : pos) {
        if (p < 0 || p >= nc) throw std::out_of_range("rank_retrieval: positive id out of range");
        best = std::max(best, row[p]);
      }
      int64_t ahead = 0;
      for (int64_t c = 0; c < nc; ++c) ahead += row[c] >= best ? 1 : 0;
      for (int64_t p : pos) ahead -= row[p] >= best ? 1 : 0;  // ground truths never count
      result.ranks[q] = 1 + ahead;
      result.topk[q].assign(t + (q - start) * keep, t + (q - start + 1) * keep);
    }
  }
  for (int k : options.ks) {
    int64_t hits = 0;
    for (int64_t r : result.ranks) hits += r <= k ? 1 : 0;
    result.recall.emplace_back(k, nq == 0 ? 0.0 : 100.0 * static_cast<double>(hits) / nq);
  }
  return result;
}

}  // namespace hnclip
