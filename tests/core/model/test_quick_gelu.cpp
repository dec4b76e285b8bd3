// Tests core/model/quick_gelu: the custom autograd function against QuickGELU written out as
// OpenAI's model.py has it, x * sigmoid(1.702 x), under autograd — values and first derivatives
// in double (where the two forms must agree to rounding) and fp32, a strided input, the
// no-grad path, bf16, and the refused second derivative.

#include "model/quick_gelu.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace hnclip {
namespace {

torch::Tensor quick_gelu_written_out(const torch::Tensor& x) {
  return x * torch::sigmoid(kQuickGeluSlope * x);
}

// Values from the saturated tails to the kink, with random ones between.
torch::Tensor quick_gelu_inputs(torch::Dtype dtype) {
  torch::manual_seed(17);
  auto fixed =
      torch::tensor({-40.0, -12.0, -3.0, -1.0, -0.25, -1e-4, 0.0, 1e-4, 0.25, 1.0, 3.0, 12.0, 40.0},
                    torch::kDouble);
  return torch::cat({fixed, torch::randn({2000}, torch::kDouble) * 4}).to(dtype);
}

// d/dx of sum(f(x) * w) for a random weight w: the input gradient under a non-trivial upstream.
torch::Tensor quick_gelu_input_gradient(torch::Tensor (*f)(const torch::Tensor&),
                                        const torch::Tensor& x0, const torch::Tensor& w) {
  auto x = x0.detach().clone().requires_grad_(true);
  (f(x) * w).sum().backward();
  return x.grad();
}

TEST(QuickGelu, EqualsTheWrittenOutFormInDouble) {
  const auto x = quick_gelu_inputs(torch::kDouble);
  const auto w = torch::randn_like(x);
  EXPECT_TRUE(torch::allclose(quick_gelu(x), quick_gelu_written_out(x), 1e-13, 1e-15));
  const auto ours = quick_gelu_input_gradient(quick_gelu, x, w);
  const auto written = quick_gelu_input_gradient(quick_gelu_written_out, x, w);
  EXPECT_TRUE(torch::allclose(ours, written, 1e-12, 1e-14))
      << (ours - written).abs().max().item<double>();
}

TEST(QuickGelu, AgreesWithTheWrittenOutFormInFloatOnAStridedInput) {
  // A transposed [40, 50] view: the function must not assume a contiguous input.
  const auto x = quick_gelu_inputs(torch::kFloat).slice(0, 0, 2000).view({50, 40}).t();
  ASSERT_FALSE(x.is_contiguous());
  const auto w = torch::randn(x.sizes());
  const auto reference = quick_gelu_written_out(x.to(torch::kDouble));
  const auto got = quick_gelu(x);
  EXPECT_EQ(got.dtype(), torch::kFloat);
  EXPECT_EQ(got.sizes(), x.sizes());
  EXPECT_TRUE(torch::allclose(got.to(torch::kDouble), reference, 1e-6, 1e-7));
  const auto grad = quick_gelu_input_gradient(quick_gelu, x, w);
  const auto grad_reference =
      quick_gelu_input_gradient(quick_gelu_written_out, x.to(torch::kDouble), w.to(torch::kDouble));
  EXPECT_TRUE(torch::allclose(grad.to(torch::kDouble), grad_reference, 1e-5, 1e-6))
      << (grad.to(torch::kDouble) - grad_reference).abs().max().item<double>();
}

TEST(QuickGelu, RunsWithoutAGraphUnderNoGrad) {
  auto x = quick_gelu_inputs(torch::kFloat).requires_grad_(true);
  torch::NoGradGuard no_grad;
  const auto y = quick_gelu(x);
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(torch::allclose(y, quick_gelu_written_out(x), 1e-6, 1e-7));
}

TEST(QuickGelu, KeepsBf16AndStaysWithinItsRounding) {
  const auto x = quick_gelu_inputs(torch::kBFloat16);
  const auto got = quick_gelu(x);
  EXPECT_EQ(got.dtype(), torch::kBFloat16);
  // bf16 keeps 8 significant bits: relative error 2^-8 per rounding, a few roundings deep.
  const auto reference = quick_gelu_written_out(x.to(torch::kDouble));
  EXPECT_TRUE(torch::allclose(got.to(torch::kDouble), reference, 3e-2, 1e-2));
  // The input gradient too (on the CPU before LibTorch 2.6 the written-out form runs for bf16;
  // either way the values must be QuickGELU's).
  const auto w = torch::randn(x.sizes(), torch::kDouble);
  const auto grad = quick_gelu_input_gradient(quick_gelu, x, w.to(torch::kBFloat16));
  EXPECT_EQ(grad.dtype(), torch::kBFloat16);
  const auto grad_reference =
      quick_gelu_input_gradient(quick_gelu_written_out, x.to(torch::kDouble), w);
  EXPECT_TRUE(torch::allclose(grad.to(torch::kDouble), grad_reference, 3e-2, 3e-2))
      << (grad.to(torch::kDouble) - grad_reference).abs().max().item<double>();
}

TEST(QuickGelu, RefusesASecondDerivative) {
  auto x = torch::randn({8}, torch::kDouble).requires_grad_(true);
  const auto y = quick_gelu(x).sum();
  try {
    torch::autograd::grad({y}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true);
    ADD_FAILURE() << "a second derivative was not refused";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("quick_gelu: no second derivative"), std::string::npos)
        << e.what();
  }
  // The first derivative on the same graph still works.
  const auto g = torch::autograd::grad({y}, {x});
  EXPECT_TRUE(torch::allclose(
      g[0], quick_gelu_input_gradient(quick_gelu_written_out, x, torch::ones_like(x)), 1e-12,
      1e-14));
}

}  // namespace
}  // namespace hnclip
