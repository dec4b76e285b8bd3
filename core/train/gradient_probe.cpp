#include "train/gradient_probe.h"

#include <torch/torch.h>

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "eval/caption_geometry.h"

namespace hnclip {

namespace {
std::vector<at::Tensor> gradients(const at::Tensor& loss, const std::vector<at::Tensor>& params) {
  return torch::autograd::grad({loss}, params, /*grad_outputs=*/{}, /*retain_graph=*/true,
                               /*create_graph=*/false, /*allow_unused=*/true);
}

// Pools Σ p_j per hardness bucket over the rows of both directions' logits (double, [B, B]).
std::vector<double> mass_shares(const at::Tensor& logits_i2t, const at::Tensor& logits_t2i,
                                const std::vector<int>& bucket_of) {
  std::array<double, kGeometryBuckets> mass{};
  const int64_t n = logits_i2t.size(0);
  for (const auto* logits : {&logits_i2t, &logits_t2i}) {
    const auto p = torch::softmax(*logits, 1).contiguous();
    const double* row = p.data_ptr<double>();
    for (int64_t r = 0; r < n; ++r, row += n) {
      for (int64_t j = 0; j < n; ++j) {
        if (j != r) mass[static_cast<size_t>(bucket_of[static_cast<size_t>(r * n + j)])] += row[j];
      }
    }
  }
  double total = 0;
  for (const double m : mass) total += m;
  std::vector<double> shares(mass.begin(), mass.end());
  for (double& s : shares) s = total > 0 ? s / total : std::numeric_limits<double>::quiet_NaN();
  return shares;
}
}  // namespace

GradientMassShares negative_gradient_mass(const at::Tensor& sim, const at::Tensor& gbar,
                                          const at::Tensor& scale, double gamma) {
  if (sim.dim() != 2 || sim.size(0) != sim.size(1) || sim.size(0) < 2 ||
      gbar.sizes() != sim.sizes()) {
    throw std::invalid_argument("negative_gradient_mass: S and Ḡ must both be [B, B], B >= 2");
  }
  torch::NoGradGuard no_grad;
  const auto s = sim.detach().to(torch::kCPU, torch::kDouble);
  const auto g = gbar.detach().to(torch::kCPU, torch::kDouble).contiguous();
  const double sc = scale.detach().to(torch::kCPU, torch::kDouble).item<double>();
  // Ḡ is symmetric, so one bucket per (row, column) serves both directions.
  const int64_t n = g.size(0);
  std::vector<int> bucket_of(static_cast<size_t>(n * n));
  const double* gv = g.data_ptr<double>();
  for (int64_t k = 0; k < n * n; ++k) bucket_of[static_cast<size_t>(k)] = geometry_bucket(gv[k]);
  GradientMassShares out;
  out.plain = mass_shares(sc * s, sc * s.t(), bucket_of);
  out.boosted = gamma == 0.0
                    ? out.plain
                    : mass_shares(sc * (s + gamma * g), sc * (s.t() + gamma * g), bucket_of);
  return out;
}

std::vector<at::Tensor> loss_gradients(const at::Tensor& loss,
                                       const std::vector<at::Tensor>& parameters) {
  torch::AutoGradMode enable(true);
  return gradients(loss, parameters);
}

ProbeValues probe_gradients(const at::Tensor& loss_standard, const at::Tensor& loss_boosted,
                            const std::vector<at::Tensor>& parameters) {
  const auto gs = loss_gradients(loss_standard, parameters);
  // γ = 0: the boosted loss *is* the standard one; one backward pass serves both.
  const auto gb =
      loss_boosted.is_same(loss_standard) ? gs : loss_gradients(loss_boosted, parameters);
  return compare_gradients(loss_standard.item<double>(), loss_boosted.item<double>(), gs, gb);
}

ProbeValues compare_gradients(double loss_standard, double loss_boosted,
                              const std::vector<at::Tensor>& gs,
                              const std::vector<at::Tensor>& gb) {
  if (gs.size() != gb.size()) {
    throw std::invalid_argument("compare_gradients: " + std::to_string(gs.size()) + " vs " +
                                std::to_string(gb.size()) + " gradient tensors");
  }
  torch::NoGradGuard no_grad;  // the arithmetic below builds no graph
  ProbeValues v;
  v.loss_standard = loss_standard;
  v.loss_boosted = loss_boosted;
  // Sums of squares and the dot product accumulated per tensor in fp32 (the precision of the
  // training step), then combined in double. The per-tensor sums stay on the gradients' device
  // and come back in one transfer: an item() each would be three syncs per tensor on a GPU. When
  // both vectors hold the same tensor (γ = 0) one sum serves all three.
  std::vector<at::Tensor> sums[3];  // Σ s², Σ b², Σ s·b
  for (size_t i = 0; i < gs.size(); ++i) {
    const bool has_s = gs[i].defined(), has_b = gb[i].defined();
    if (has_s && has_b && gs[i].is_same(gb[i])) {
      const auto sq = gs[i].pow(2).sum();
      for (auto& part : sums) part.push_back(sq);
      continue;
    }
    if (has_s) sums[0].push_back(gs[i].pow(2).sum());
    if (has_b) sums[1].push_back(gb[i].pow(2).sum());
    if (has_s && has_b) sums[2].push_back((gs[i] * gb[i]).sum());
  }
  double total[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (sums[k].empty()) continue;
    const auto host = torch::stack(sums[k]).to(torch::kCPU, torch::kDouble).contiguous();
    const double* v = host.data_ptr<double>();
    for (int64_t j = 0; j < host.numel(); ++j) total[k] += v[j];
  }
  const double ss = total[0], sb = total[1], dot = total[2];
  v.grad_norm_standard = std::sqrt(ss);
  v.grad_norm_boosted = std::sqrt(sb);
  v.grad_ratio = v.grad_norm_standard == 0 ? std::numeric_limits<double>::infinity()
                                           : v.grad_norm_boosted / v.grad_norm_standard;
  v.grad_cosine = (ss == 0 || sb == 0) ? std::numeric_limits<double>::quiet_NaN()
                                       : dot / (v.grad_norm_standard * v.grad_norm_boosted);
  return v;
}

}  // namespace hnclip
