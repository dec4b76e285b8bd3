#pragma once
// The loss tests' feature matrices as the models hand them over: every row scaled to unit length.

#include <torch/torch.h>

namespace hnclip::test {

inline torch::Tensor unit_rows(const torch::Tensor& x) { return x / x.norm(2, 1, true); }

}  // namespace hnclip::test
