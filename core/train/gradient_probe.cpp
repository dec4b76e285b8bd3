#include "train/gradient_probe.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace hnclip {

namespace {
std::vector<at::Tensor> gradients(const at::Tensor& loss, const std::vector<at::Tensor>& params) {
  return torch::autograd::grad({loss}, params, /*grad_outputs=*/{}, /*retain_graph=*/true,
                               /*create_graph=*/false, /*allow_unused=*/true);
}
}  // namespace

ProbeValues probe_gradients(const at::Tensor& loss_standard, const at::Tensor& loss_boosted,
                            const std::vector<at::Tensor>& parameters) {
  torch::NoGradGuard no_grad_outside;  // the arithmetic below builds no graph
  ProbeValues v;
  v.loss_standard = loss_standard.item<double>();
  v.loss_boosted = loss_boosted.item<double>();
  std::vector<at::Tensor> gs, gb;
  {
    torch::AutoGradMode enable(true);
    gs = gradients(loss_standard, parameters);
    // γ = 0: the boosted loss *is* the standard one; one backward pass serves both.
    gb = loss_boosted.is_same(loss_standard) ? gs : gradients(loss_boosted, parameters);
  }
  // Sums of squares and the dot product accumulated per tensor in fp32 (the precision of the
  // training step), then combined in double.
  double ss = 0, sb = 0, dot = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const bool has_s = gs[i].defined(), has_b = gb[i].defined();
    if (has_s) ss += gs[i].pow(2).sum().item<double>();
    if (has_b) sb += gb[i].pow(2).sum().item<double>();
    if (has_s && has_b) dot += (gs[i] * gb[i]).sum().item<double>();
  }
  v.grad_norm_standard = std::sqrt(ss);
  v.grad_norm_boosted = std::sqrt(sb);
  v.grad_ratio = v.grad_norm_standard == 0 ? std::numeric_limits<double>::infinity()
                                           : v.grad_norm_boosted / v.grad_norm_standard;
  v.grad_cosine = (ss == 0 || sb == 0) ? std::numeric_limits<double>::quiet_NaN()
                                       : dot / (v.grad_norm_standard * v.grad_norm_boosted);
  return v;
}

}  // namespace hnclip
