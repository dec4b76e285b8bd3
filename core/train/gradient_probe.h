#pragma once
// Gradient probe (paper Fig. 4/A8): on one batch, the plain InfoNCE loss and the boosted (HN)
// loss, the full-parameter gradient L2 norm of each, their ratio and the cosine between the two
// gradient vectors. Uses torch::autograd::grad, so parameters' .grad, the optimiser, the RNG and
// the data order are untouched: a run with probes is the same run as one without.

#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

struct ProbeValues {
  double loss_standard = 0;
  double loss_boosted = 0;
  double grad_norm_standard = 0;  // fp32 norm; exactly 0 means a vanished gradient
  double grad_norm_boosted = 0;
  double grad_ratio = 0;          // boosted / standard (inf when standard is exactly 0)
  double grad_cosine = 0;         // NaN when either gradient is exactly 0
};

// Both losses must still have their graphs (the graphs are retained for the training backward).
// Passing the same tensor twice (γ = 0) costs one backward pass instead of two.
ProbeValues probe_gradients(const at::Tensor& loss_standard, const at::Tensor& loss_boosted,
                            const std::vector<at::Tensor>& parameters);

}  // namespace hnclip
