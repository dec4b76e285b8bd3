// Tests core/train/gradient_probe against a second path (separate forward + backward per loss,
// gradients read from .grad), and that probing leaves .grad untouched.

#include "train/gradient_probe.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "loss/hn_contrastive_loss.h"
#include "model/make_clip_model.h"
#include "support/in_memory_data.h"
#include "train/trainer.h"

namespace hnclip {
namespace {

struct Losses {
  torch::Tensor standard, boosted;
};

Losses forward(ClipModel& m, const test::InMemoryPairedData& d, double gamma) {
  std::vector<int64_t> ids{0, 1, 2, 3, 4, 5, 6, 7};
  auto v = torch::nn::functional::normalize(m->encode_image(d.load_images(ids)).pooled,
                                            torch::nn::functional::NormalizeFuncOptions().dim(-1));
  auto t = torch::nn::functional::normalize(m->encode_text(d.load_tokens(ids)).pooled,
                                            torch::nn::functional::NormalizeFuncOptions().dim(-1));
  auto s = m->scale();
  return {info_nce_loss(v, t, s), hn_contrastive_loss(v, t, s, gamma, t).loss};
}

torch::Tensor flat_grad(ClipModel& m, const torch::Tensor& loss) {
  m->zero_grad();
  loss.backward();
  std::vector<torch::Tensor> parts;
  for (auto& p : m->parameters())
    parts.push_back(p.grad().defined() ? p.grad().flatten().clone() : torch::zeros({p.numel()}));
  m->zero_grad();
  return torch::cat(parts);
}

TEST(GradientProbe, MatchesSeparateBackwardPasses) {
  test::InMemoryPairedData data(8, 3);
  auto model = make_clip_model(test::tiny_test_config(), 9);
  for (double gamma : {0.0, 0.5, 1.0}) {
    auto params = model->parameters();
    for (auto& p : params) p.mutable_grad().reset();  // undefined: anything written would show
    auto l = forward(model, data, gamma);
    const auto pv = probe_gradients(l.standard, l.boosted, params);
    for (auto& p : params) EXPECT_FALSE(p.grad().defined()) << "probe wrote .grad";

    auto gs = flat_grad(model, forward(model, data, gamma).standard);
    auto gb = flat_grad(model, forward(model, data, gamma).boosted);
    SCOPED_TRACE("gamma " + std::to_string(gamma));
    EXPECT_NEAR(pv.loss_standard, l.standard.item<double>(), 1e-7);
    EXPECT_NEAR(pv.loss_boosted, l.boosted.item<double>(), 1e-7);
    EXPECT_NEAR(pv.grad_norm_standard, gs.norm().item<double>(), 1e-5 * pv.grad_norm_standard);
    EXPECT_NEAR(pv.grad_norm_boosted, gb.norm().item<double>(), 1e-5 * pv.grad_norm_boosted);
    EXPECT_NEAR(pv.grad_ratio, gb.norm().item<double>() / gs.norm().item<double>(), 1e-5);
    EXPECT_NEAR(pv.grad_cosine,
                torch::dot(gs, gb).item<double>() / (gs.norm() * gb.norm()).item<double>(), 1e-5);
    if (gamma == 0.0) {
      EXPECT_DOUBLE_EQ(pv.grad_ratio, 1.0);
      EXPECT_NEAR(pv.grad_cosine, 1.0, 1e-6);
    } else {
      EXPECT_GT(pv.loss_boosted, pv.loss_standard);
    }
  }
}

TEST(GradientProbe, AVanishedGradientIsExactlyZeroWithUndefinedCosine) {
  // A loss that does not depend on the parameters has an all-zero (unused) gradient.
  auto w = torch::ones({3}, torch::requires_grad());
  auto constant = torch::tensor(0.5).requires_grad_(false);
  auto dependent = (w * 2).sum();
  const auto pv = probe_gradients(constant + 0 * dependent, dependent, {w});
  EXPECT_EQ(pv.grad_norm_standard, 0.0);
  EXPECT_NEAR(pv.grad_norm_boosted, std::sqrt(12.0), 1e-6);
  EXPECT_TRUE(std::isinf(pv.grad_ratio));
  EXPECT_TRUE(std::isnan(pv.grad_cosine));
}

}  // namespace
}  // namespace hnclip
