#pragma once
// Where a tensor holds NaN or ±inf. Every comparison with NaN is false, so code that ranks,
// takes maxima or thresholds silently turns garbage into success (a model with NaN weights once
// scored R@1 = 100%). Loaders and the evaluator ask this first and refuse, naming what is broken.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hnclip {

// Weights, features or scores that are not finite; the message names the file, tensor, split or
// index. A subclass of std::runtime_error so existing handlers report it like any data error.
class NonFiniteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NonFiniteValues {
  int64_t nan = 0;
  int64_t infinite = 0;
  std::vector<int64_t> first;  // index (one entry per dimension) of the first bad element
};

// Nothing for an all-finite tensor or one that is not floating point; else the counts and where
// the first bad value sits (row-major order). One pass when everything is finite.
std::optional<NonFiniteValues> find_non_finite(const at::Tensor& t);

// "2 NaN and 1 infinite value(s), the first at [3, 17]".
std::string describe(const NonFiniteValues& v);

}  // namespace hnclip
