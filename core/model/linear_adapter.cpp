#include "model/linear_adapter.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace hnclip {

namespace {
namespace F = torch::nn::functional;

// ‖w‖ per output feature (row of [out, in]). One formula for DoRA's initial magnitude and its
// forward norm, so that at B = 0 the ratio m / ‖W‖ is exactly 1.
torch::Tensor row_norm(const torch::Tensor& w) { return w.square().sum(1).sqrt(); }
}  // namespace

LinearAdapterImpl::LinearAdapterImpl(AdapterKind kind, const torch::Tensor& weight, int64_t rank,
                                     double alpha, at::Generator generator)
    : kind_(kind), rank_(rank), alpha_(alpha) {
  if (weight.dim() != 2) throw std::invalid_argument("LinearAdapter: the adapted weight must be 2-D");
  if (rank < 1) throw std::invalid_argument("LinearAdapter: rank must be >= 1 (got " + std::to_string(rank) + ")");
  if (!(alpha > 0) || !std::isfinite(alpha)) throw std::invalid_argument("LinearAdapter: alpha must be > 0");
  const int64_t out = weight.size(0), in = weight.size(1);
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  // Drawn in fp32 on the CPU from the caller's generator (same values on every device), then moved.
  auto a = (torch::rand({rank, in}, generator, torch::kFloat) * 2.0 - 1.0) * bound;
  lora_A = register_parameter("lora_A", a.to(weight.options()));
  lora_B = register_parameter("lora_B", torch::zeros({out, rank}, weight.options()));
  if (kind_ == AdapterKind::Dora) {
    torch::NoGradGuard no_grad;
    magnitude = register_parameter("magnitude", row_norm(weight.detach()).clone());
  }
}

torch::Tensor LinearAdapterImpl::direction_norm(const torch::Tensor& weight) const {
  // Detached (DoRA section 4.3): computed without a graph, treated as a constant in backward.
  torch::NoGradGuard no_grad;
  return row_norm(weight + scaling() * torch::matmul(lora_B, lora_A));
}

torch::Tensor LinearAdapterImpl::forward(const torch::Tensor& x, const torch::Tensor& weight,
                                         const torch::Tensor& bias) {
  const auto low = F::linear(F::linear(x, lora_A), lora_B);
  if (kind_ == AdapterKind::Lora) return F::linear(x, weight, bias).add(low, scaling());
  // DoRA: (m / ‖W + sBA‖) ⊙ (x·Wᵀ + s·x·Aᵀ·Bᵀ) + b — equal to linear(x, W', b) without forming W'.
  auto y = F::linear(x, weight).add(low, scaling()) * (magnitude / direction_norm(weight));
  return bias.defined() ? y + bias : y;
}

torch::Tensor LinearAdapterImpl::merged_weight(const torch::Tensor& weight) const {
  auto w = weight + scaling() * torch::matmul(lora_B, lora_A);
  if (kind_ == AdapterKind::Lora) return w;
  return w * (magnitude / row_norm(w)).unsqueeze(1);
}

}  // namespace hnclip
