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

// What the trainer does on a probing step without a token term: the standard gradient through
// loss_gradients (graph retained), the boosted one from the training backward's .grad.
TEST(GradientProbe, ReusingTheTrainingBackwardMatchesSeparatePasses) {
  test::InMemoryPairedData data(8, 3);
  auto model = make_clip_model(test::tiny_test_config(), 9);
  auto params = model->parameters();
  for (double gamma : {0.0, 0.5}) {
    SCOPED_TRACE("gamma " + std::to_string(gamma));
    const auto l = forward(model, data, gamma);
    const auto ref = probe_gradients(l.standard, gamma == 0.0 ? l.standard : l.boosted, params);

    for (auto& p : params) p.mutable_grad().reset();
    const auto again = forward(model, data, gamma);
    std::vector<torch::Tensor> gs;
    if (gamma != 0.0) gs = loss_gradients(again.standard, params);
    for (auto& p : params) EXPECT_FALSE(p.grad().defined()) << "loss_gradients wrote .grad";
    again.boosted.backward();  // the training backward (its graph was retained above)
    std::vector<torch::Tensor> gb;
    for (auto& p : params) gb.push_back(p.grad());
    const auto pv = compare_gradients(again.standard.item<double>(), again.boosted.item<double>(),
                                      gamma == 0.0 ? gb : gs, gb);
    EXPECT_NEAR(pv.grad_norm_standard, ref.grad_norm_standard, 1e-5 * ref.grad_norm_standard);
    EXPECT_NEAR(pv.grad_norm_boosted, ref.grad_norm_boosted, 1e-5 * ref.grad_norm_boosted);
    EXPECT_NEAR(pv.grad_ratio, ref.grad_ratio, 1e-5);
    EXPECT_NEAR(pv.grad_cosine, ref.grad_cosine, 1e-5);
    if (gamma != 0.0) EXPECT_LT(pv.grad_cosine, 1.0 - 1e-6);  // two different gradients
  }
  EXPECT_THROW(compare_gradients(0, 0, {torch::ones({2})}, {}), std::invalid_argument);
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

// Where the gradient goes, on a hand-made batch of three pairs whose Ḡ puts each negative pair in
// a known hardness bucket: (0,1) = 0.95 -> ">=0.9" (4), (0,2) = 0.3 -> "<0.5" (0),
// (1,2) = 0.75 -> "0.7-0.8" (2).
struct HandBatch {
  std::vector<std::vector<double>> sim{{1.0, 0.5, 0.0}, {0.2, 1.0, 0.1}, {0.3, 0.4, 1.0}};
  std::vector<std::vector<double>> gbar{{0.0, 0.95, 0.3}, {0.95, 0.0, 0.75}, {0.3, 0.75, 0.0}};
  int bucket(size_t r, size_t j) const {
    const double g = gbar[r][j];
    return g >= 0.9 ? 4 : g >= 0.7 ? 2 : 0;  // only the values above occur
  }
  torch::Tensor tensor(const std::vector<std::vector<double>>& m) const {
    auto t = torch::zeros({3, 3}, torch::kFloat);
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t j = 0; j < 3; ++j) t[r][j] = m[r][j];
    return t;
  }
  // The shares by a plain loop: softmax of each row of both directions, pooled per bucket.
  std::vector<double> expected(double s, double gamma) const {
    std::vector<double> mass(5, 0.0);
    for (int direction = 0; direction < 2; ++direction) {
      for (size_t r = 0; r < 3; ++r) {
        double logits[3], z = 0;
        for (size_t j = 0; j < 3; ++j) {
          const double sij = direction == 0 ? sim[r][j] : sim[j][r];
          logits[j] = s * (sij + gamma * (r == j ? 0.0 : gbar[r][j]));
          z += std::exp(logits[j]);
        }
        for (size_t j = 0; j < 3; ++j) {
          if (j != r) mass[static_cast<size_t>(bucket(r, j))] += std::exp(logits[j]) / z;
        }
      }
    }
    double total = 0;
    for (double m : mass) total += m;
    for (double& m : mass) m /= total;
    return mass;
  }
};

TEST(GradientMass, UniformRowsGiveEachNegativeTheSameMass) {
  // S = 0: every row's softmax is uniform (1/3 each), so each of the six ordered negative pairs
  // carries the same mass, two per occupied bucket.
  HandBatch b;
  const auto m =
      negative_gradient_mass(torch::zeros({3, 3}), b.tensor(b.gbar), torch::tensor(1.0f), 0.0);
  const std::vector<double> want{1.0 / 3, 0, 1.0 / 3, 0, 1.0 / 3};
  ASSERT_EQ(m.plain.size(), 5u);
  for (size_t k = 0; k < 5; ++k) {
    EXPECT_NEAR(m.plain[k], want[k], 1e-12) << k;
    EXPECT_EQ(m.boosted[k], m.plain[k]) << k;  // γ = 0: boosted is plain
  }
}

TEST(GradientMass, SharesMatchALoopOverBothDirections) {
  HandBatch b;
  for (const double gamma : {0.0, 0.5, 2.0}) {
    SCOPED_TRACE("gamma " + std::to_string(gamma));
    const auto m =
        negative_gradient_mass(b.tensor(b.sim), b.tensor(b.gbar), torch::tensor(5.0f), gamma);
    const auto plain = b.expected(5.0, 0.0);
    const auto boosted = b.expected(5.0, gamma);
    ASSERT_EQ(m.plain.size(), 5u);
    ASSERT_EQ(m.boosted.size(), 5u);
    double sum = 0;
    for (size_t k = 0; k < 5; ++k) {
      EXPECT_NEAR(m.plain[k], plain[k], 1e-6) << k;
      EXPECT_NEAR(m.boosted[k], boosted[k], 1e-6) << k;
      sum += m.boosted[k];
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_EQ(m.plain[1], 0.0);  // no negative has 0.5 <= Ḡ < 0.7
  }
  // The margins move mass towards the near-twin pair (0,1): Ḡ = 0.95.
  const auto m =
      negative_gradient_mass(b.tensor(b.sim), b.tensor(b.gbar), torch::tensor(5.0f), 1.0);
  EXPECT_GT(m.boosted[4], m.plain[4] + 0.1);
}

TEST(GradientMass, BucketEdgesAreTheCaptionGeometrys) {
  // Ḡ exactly 0.5 / 0.9 belongs to the upper bucket, as in eval/caption_geometry.
  auto g = torch::tensor({0.0f, 0.5f, 0.5f, 0.0f}).view({2, 2});
  auto m = negative_gradient_mass(torch::zeros({2, 2}), g, torch::tensor(1.0f), 0.0);
  EXPECT_EQ(m.plain[1], 1.0);
  // 0.9 in double: a float 0.9f is just below it.
  g = torch::tensor({0.0, 0.9, 0.9, 0.0}, torch::kDouble).view({2, 2});
  m = negative_gradient_mass(torch::zeros({2, 2}), g, torch::tensor(1.0f), 0.0);
  EXPECT_EQ(m.plain[4], 1.0);
  EXPECT_THROW(negative_gradient_mass(torch::zeros({2, 3}), g, torch::tensor(1.0f), 0.0),
               std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
