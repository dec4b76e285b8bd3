#include "eval/retrieval_result.h"

#include <stdexcept>

namespace hnclip {

double RetrievalResult::recall_at(int k) const {
  for (const auto& [kk, r] : recall) {
    if (kk == k) return r;
  }
  throw std::out_of_range("recall@" + std::to_string(k) + " was not computed for " + direction);
}

}  // namespace hnclip
