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
  double grad_ratio = 0;   // boosted / standard (inf when standard is exactly 0)
  double grad_cosine = 0;  // NaN when either gradient is exactly 0
};

// "Where the gradient goes" (issue 14): for a cross-entropy over one row of logits the gradient
// on negative j's logit is its softmax probability p_j. Each row's negatives are bucketed by their
// Ḡ value with the caption geometry's hardness buckets (eval/caption_geometry.h); a share is a
// bucket's Σ p_j over the share of all negatives' Σ p_j. Both directions (i→t rows of s·S and t→i
// rows of s·Sᵀ, each with +γ·Ḡ when boosted) are pooled: one share per bucket over all 2B rows.
struct GradientMassShares {
  std::vector<double> plain;    // kGeometryBuckets shares under s·S (plain InfoNCE); sum 1
  std::vector<double> boosted;  // the same under s·(S + γḠ); equal to `plain` for γ = 0
};

// sim: S = V Tᵀ [B, B]; gbar: Ḡ [B, B] (diagonal ignored); scale: s (scalar). Computed in double
// without a graph (no backward). A share is NaN when no row carries any negative mass at all.
// Throws std::invalid_argument for shapes that are not [B, B] alike (B >= 2).
GradientMassShares negative_gradient_mass(const at::Tensor& sim, const at::Tensor& gbar,
                                          const at::Tensor& scale, double gamma);

// Both losses must still have their graphs (the graphs are retained for the training backward).
// Passing the same tensor twice (γ = 0) costs one backward pass instead of two.
ProbeValues probe_gradients(const at::Tensor& loss_standard, const at::Tensor& loss_boosted,
                            const std::vector<at::Tensor>& parameters);

// The gradients of `loss` w.r.t. `parameters` through autograd::grad, its graph retained for a
// backward that follows; undefined where the loss does not reach a parameter. .grad is untouched.
std::vector<at::Tensor> loss_gradients(const at::Tensor& loss,
                                       const std::vector<at::Tensor>& parameters);

// The probe's values from gradients already at hand, e.g. the training backward's .grad (read
// before clipping) as `boosted` when the training loss is the boosted loss, and loss_gradients()
// of the standard loss — or the same vector twice for γ = 0. Undefined entries count as zeros.
ProbeValues compare_gradients(double loss_standard, double loss_boosted,
                              const std::vector<at::Tensor>& standard,
                              const std::vector<at::Tensor>& boosted);

}  // namespace hnclip
