#pragma once
// RetrievalResult: recall and per-query ranks of one retrieval direction, as plain values
// (no LibTorch) so the store and the GUI can hold them.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hnclip {

struct RetrievalResult {
  std::string direction;                     // "t2i" (caption queries) or "i2t" (image queries)
  std::vector<std::pair<int, double>> recall;  // (K, recall in percent), K ascending
  std::vector<int64_t> ranks;                // per query: 1-based rank of its best ground truth
  std::vector<std::vector<int64_t>> topk;    // per query: ids of its top candidates, best first

  // Recall at K in percent; throws std::out_of_range if K was not computed.
  double recall_at(int k) const;
};

}  // namespace hnclip
