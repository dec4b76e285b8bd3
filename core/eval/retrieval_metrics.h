#pragma once
// Retrieval metrics: Recall@K and per-query ranks for one direction, computed in query chunks so
// memory stays O(chunk × candidates) however large the test set.
//
// Rank rule (ties count against the query): the rank of a query is 1 + the number of
// non-ground-truth candidates scoring >= its best ground truth. A query with several ground
// truths (an image with several captions) hits at K if any of them is within the top K.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "eval/retrieval_result.h"

namespace hnclip {

struct RetrievalOptions {
  std::vector<int> ks{1, 5, 10, 25, 50};
  int topk = 10;                               // candidate ids kept per query
  int64_t max_chunk_elements = int64_t{1} << 24;  // bounds one chunk's score matrix (~64 MB)
};

// queries: [Q, d], candidates: [C, d] (compared by dot product: normalise them first);
// positives[q]: the distinct candidate ids that are correct for query q (at least one each).
// A non-finite feature or score is refused with NonFiniteError naming the direction and the
// query or candidate index — never ranked (NaN compares false with everything).
RetrievalResult rank_retrieval(const at::Tensor& queries, const at::Tensor& candidates,
                               const std::vector<std::vector<int64_t>>& positives,
                               const std::string& direction, const RetrievalOptions& options = {});

// The scores of queries [from, to) against every candidate: a [to - from, C] tensor.
using ScoreRows = std::function<at::Tensor(int64_t from, int64_t to)>;

// The same ranking for any score, not only a dot product (caption consensus fuses two). On the
// CPU `scores` is called from LibTorch's threads for blocks of 64 queries; on another device once
// per chunk. A non-finite score is refused with NonFiniteError naming the query and candidate.
RetrievalResult rank_scores(int64_t num_queries, int64_t num_candidates, const ScoreRows& scores,
                            c10::Device device, const std::vector<std::vector<int64_t>>& positives,
                            const std::string& direction, const RetrievalOptions& options = {});

}  // namespace hnclip
