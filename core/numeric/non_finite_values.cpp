#include "numeric/non_finite_values.h"

#include <torch/torch.h>

namespace hnclip {

std::optional<NonFiniteValues> find_non_finite(const at::Tensor& t) {
  if (!t.defined() || !t.is_floating_point() || t.numel() == 0) return std::nullopt;
  torch::NoGradGuard no_grad;
  const auto finite = torch::isfinite(t.detach());
  if (finite.all().item<bool>()) return std::nullopt;
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
