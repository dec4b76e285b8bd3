#include "numeric/non_finite_values.h"

#include <torch/torch.h>

#include <algorithm>

namespace hnclip {

std::optional<NonFiniteValues> find_non_finite(const at::Tensor& t) {
  if (!t.defined() || !t.is_floating_point() || t.numel() == 0) return std::nullopt;
  torch::NoGradGuard no_grad;
  // The all-finite check slice by slice: isfinite makes temporaries the size of its input (|x|
  // in floats, two masks), which for 100,000 features of 512 were 300 MB above the features
  // themselves — more than the retrieval that checks them holds.
  constexpr int64_t kSlice = int64_t{1} << 22;
  const auto values = t.detach().reshape({-1});
  const int64_t n = values.numel();
  bool all_finite = true;
  for (int64_t i = 0; i < n && all_finite; i += kSlice) {
    all_finite = torch::isfinite(values.slice(0, i, std::min(n, i + kSlice))).all().item<bool>();
  }
  if (all_finite) return std::nullopt;
  const auto finite = torch::isfinite(t.detach());
  NonFiniteValues v;
  v.nan = torch::isnan(t.detach()).sum().item<int64_t>();
  v.infinite = (~finite).sum().item<int64_t>() - v.nan;
  // argmax of a bool tensor is its first true element.
  int64_t flat = (~finite).reshape({-1}).to(torch::kUInt8).argmax().item<int64_t>();
  v.first.assign(static_cast<size_t>(t.dim()), 0);
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    v.first[static_cast<size_t>(d)] = flat % t.size(d);
    flat /= t.size(d);
  }
  return v;
}

std::string describe(const NonFiniteValues& v) {
  std::string where = "[";
  for (size_t i = 0; i < v.first.size(); ++i) where += (i ? ", " : "") + std::to_string(v.first[i]);
  where += "]";
  return std::to_string(v.nan) + " NaN and " + std::to_string(v.infinite) +
         " infinite value(s), the first at " + where;
}

}  // namespace hnclip
