#include "data/data_problems.h"

#include "data/benchmark.h"

namespace hnclip {

void DataProblems::add(std::string problem) {
  ++count_;
  if (shown_.size() < kShown) shown_.push_back(std::move(problem));
}

void DataProblems::throw_if_any() const {
  if (count_ == 0) return;
  if (count_ == 1) throw DataError(shown_.front());
  std::string message = context_ + ": " + std::to_string(count_) + " problems: ";
  for (size_t i = 0; i < shown_.size(); ++i) message += (i ? "; " : "") + shown_[i];
  if (count_ > shown_.size()) message += "; and " + std::to_string(count_ - shown_.size()) + " more";
  throw DataError(message);
}

}  // namespace hnclip
