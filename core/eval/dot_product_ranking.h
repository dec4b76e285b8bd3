#pragma once
// Ranking by dot product on the CPU, tiled over queries *and* candidates (rank_retrieval's CPU
// path). Why tiles: a BLAS product reads and packs both of its operands once per call, so its
// speed depends on both sides being large. Whole rows of scores (every candidate per query, as
// rank_scores computes them) fit the memory bound only for a few rows per call — 167 at 100,000
// candidates and 64 MB — and packing all of the candidates again for every few queries took a
// quarter of the time or more (measured at 10,000 x 100,000 against faiss IndexFlatIP: 2.27x with
// 64 queries per call, 1.60x with 167; tests/bench/retrieval_vs_faiss). Blocks of about 2,000
// queries x 4,096 candidates per call keep the packing negligible, as faiss's own blocks do
// (1.08x).
//
// The price of never holding a whole row is that the ground truth's score is not known while the
// candidates ahead of it are counted. It is estimated first (a double-precision dot product) and
// every candidate is sorted against the estimate widened by a margin: above it counts as ahead,
// below it does not, and the few scores inside the margin are kept and compared at the end with
// the ground truth's own score from the same products. So the rank is exact with respect to the
// scores the products computed — the same rule as rank_scores (ties count against the query). A
// query whose ground truth falls outside its margin, or with too many scores inside it (exact
// ties by the thousand), is ranked again from its whole row.

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "eval/retrieval_result.h"

namespace hnclip {

// queries [Q, d], candidates [C, d]: finite float CPU tensors (the caller checks); positives as
// in rank_retrieval (checked by the caller). Fills result.ranks and result.topk (the `keep` best
// candidate ids per query, best first, equal scores in candidate order); the caller computes the
// recall. At most max_chunk_elements scores are held at once, over all threads. A score that is
// not finite (an overflowing product) is refused with NonFiniteError naming the first such query
// and candidate.
void rank_dot_products(const at::Tensor& queries, const at::Tensor& candidates,
                       const std::vector<std::vector<int64_t>>& positives, int64_t keep,
                       int64_t max_chunk_elements, const std::string& direction,
                       RetrievalResult& result);

}  // namespace hnclip
