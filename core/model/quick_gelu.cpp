#include "model/quick_gelu.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <stdexcept>

namespace hnclip {
namespace {

// LibTorch's CPU silu and silu_backward for bf16 / fp16: vectorised in 2.6, element by element in
// 1.13, where the custom function ran at 0.37-0.52x the written-out form's speed on bf16
// (tests/bench/quick_gelu_vs_written_out --dtype bf16; 2.6 measured 1.3-1.7x faster). Versions
// between were not measured and keep the written-out form there.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6)
constexpr bool kCpuReducedSiluVectorised = true;
#else
constexpr bool kCpuReducedSiluVectorised = false;
#endif

// silu(y) = y · σ(y), so silu(1.702 x) / 1.702 = x · σ(1.702 x), and the derivative of the latter
// in x is silu'(1.702 x): the 1.702 of the chain rule cancels the 1 / 1.702.
struct QuickGeluFunction : public torch::autograd::Function<QuickGeluFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x) {
    auto y = x * kQuickGeluSlope;
    ctx->save_for_backward({y});
    return torch::silu(y).mul_(1.0 / kQuickGeluSlope);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    if (torch::GradMode::is_enabled()) {
      throw std::logic_error(
          "quick_gelu: no second derivative (autograd with create_graph); its backward keeps "
          "1.702 x without a graph back to x");
    }
    const auto saved = ctx->get_saved_variables();
    return {at::silu_backward(grads[0], saved[0])};
  }
};

}  // namespace

at::Tensor quick_gelu(const at::Tensor& x) {
  const bool reduced = x.scalar_type() == at::kBFloat16 || x.scalar_type() == at::kHalf;
  if (reduced && x.is_cpu() && !kCpuReducedSiluVectorised) {
    return x * torch::sigmoid(kQuickGeluSlope * x);
  }
  return QuickGeluFunction::apply(x);
}

}  // namespace hnclip
