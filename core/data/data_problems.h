#pragma once
// DataProblems: what a benchmark reader found wrong while validating a data set. Readers keep
// going after a problem so that one run reports every missing image (the first kShown of them,
// with the total count) instead of one per attempt; the problems are then thrown together as one
// DataError. Each problem is one line that names its file (and line, or JSON key). One reader
// owns an instance; not thread-safe.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace hnclip {

class DataProblems {
 public:
  // How many problems a message lists before it only counts the rest.
  static constexpr size_t kShown = 20;

  // `context` introduces a message with several problems, e.g. "docci benchmark at /data/docci".
  explicit DataProblems(std::string context) : context_(std::move(context)) {}

  void add(std::string problem);
  size_t count() const { return count_; }
  bool empty() const { return count_ == 0; }

  // Throws DataError if any problem was added: a single problem is the whole message; several
  // give "<context>: N problems: p1; p2; ...; and K more".
  void throw_if_any() const;

 private:
  std::string context_;
  std::vector<std::string> shown_;
  size_t count_ = 0;
};

}  // namespace hnclip
