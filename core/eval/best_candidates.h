#pragma once
// The `keep` best candidates of one query, fed its scores in candidate order, in one row or tile by
// tile: best first, equal scores in candidate order (deterministic, which torch::topk does not
// promise). A heap of the kept ones whose root is the worst: once `keep` are held, almost every
// score loses to the root at one compare. Used by both of retrieval's CPU paths (rank_scores's
// whole rows, dot_product_ranking's tiles).

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace hnclip {

class BestCandidates {
 public:
  // Forgets what was kept, for a query that keeps `keep` (>= 0).
  void reset(int64_t keep) {
    keep_ = keep;
    heap_.clear();
    heap_.reserve(static_cast<size_t>(std::max<int64_t>(keep, 0)));
  }

  // The scores of candidates first, first + 1, …, first + n - 1 (after every earlier candidate).
  void offer(const float* scores, int64_t first, int64_t n) {
    if (keep_ <= 0) return;
    int64_t c = 0;
    for (; c < n && static_cast<int64_t>(heap_.size()) < keep_; ++c) {
      heap_.emplace_back(scores[c], first + c);
      if (static_cast<int64_t>(heap_.size()) == keep_) std::make_heap(heap_.begin(), heap_.end(), Better{});
    }
    // A later candidate loses a tie (it comes after), so only a strictly higher score enters.
    for (; c < n; ++c) {
      if (scores[c] > heap_.front().first) {
        std::pop_heap(heap_.begin(), heap_.end(), Better{});
        heap_.back() = {scores[c], first + c};
        std::push_heap(heap_.begin(), heap_.end(), Better{});
      }
    }
  }

  // The kept ids, best first, into `out` (the kept set is then in sorted order, not a heap: call
  // reset before offering again).
  void ids(std::vector<int64_t>& out) {
    std::sort(heap_.begin(), heap_.end(), Better{});
    out.resize(heap_.size());
    for (size_t i = 0; i < heap_.size(); ++i) out[i] = heap_[i].second;
  }

 private:
  using Entry = std::pair<float, int64_t>;  // (score, candidate id)
  // "a before b": a is better (higher score, or equal and earlier). A type, not a function, so
  // the heap operations inline it.
  struct Better {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    }
  };
  int64_t keep_ = 0;
  std::vector<Entry> heap_;
};

}  // namespace hnclip
