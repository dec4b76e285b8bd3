// Tests core/loss/hn_contrastive_loss: against an independent python3-torch reference (values and
// gradients, float64), γ = 0 == InfoNCE bit for bit, no gradient through Ḡ, masked diagonal.

#include "loss/hn_contrastive_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "support/json_matrix.h"
#include "support/reference_script.h"
#include "support/test_dirs.h"
#include "support/unit_rows.h"

namespace hnclip {
namespace {

using nlohmann::json;

using test::unit_rows;

using test::from_json_matrix;
using test::to_json_matrix;

struct LossCase {
  torch::Tensor V, T, T0;  // T0 undefined = recomputed Ḡ
  double s, gamma;
};

TEST(HnContrastiveLoss, MatchesIndependentPythonReference) {
  torch::manual_seed(7);
  std::vector<LossCase> cases;
  for (double gamma : {0.0, 0.5, 1.0}) {
    for (bool frozen : {false, true}) {
      for (double s : {10.0, 100.0}) {
        const int64_t b = 6, d = 8;
        auto T = unit_rows(torch::randn({b, d}, torch::kDouble));
        // Near-duplicate captions: row 1 is row 0 plus a little noise, so Ḡ has a large entry.
        T[1] = unit_rows((T[0] + 0.05 * torch::randn({d}, torch::kDouble)).unsqueeze(0))[0];
        auto V = unit_rows(T + 0.7 * torch::randn({b, d}, torch::kDouble));
        torch::Tensor T0;
        if (frozen) T0 = unit_rows(T + 0.3 * torch::randn({b, d}, torch::kDouble));
        cases.push_back({V, T, T0, s, gamma});
      }
    }
  }
  test::ScratchDir dir;
  json in{{"cases", json::array()}};
  for (const auto& c : cases) {
    in["cases"].push_back({{"V", to_json_matrix(c.V)},
                           {"T", to_json_matrix(c.T)},
                           {"T0", c.T0.defined() ? to_json_matrix(c.T0) : json()},
                           {"s", c.s},
                           {"gamma", c.gamma}});
  }
  const auto ref = test::run_reference_script("hn_loss_reference.py", in, dir)["results"];
  ASSERT_EQ(ref.size(), cases.size());

  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    auto V = c.V.clone().requires_grad_(true);
    auto T = c.T.clone().requires_grad_(true);
    const auto scale = torch::tensor(c.s, torch::kDouble);
    auto result = hn_contrastive_loss(V, T, scale, c.gamma, c.T0.defined() ? c.T0 : T);
    result.loss.backward();
    SCOPED_TRACE("case " + std::to_string(i) + " gamma=" + std::to_string(c.gamma) +
                 " frozen=" + std::to_string(c.T0.defined()) + " s=" + std::to_string(c.s));
    EXPECT_NEAR(result.loss.item<double>(), ref[i]["loss"].get<double>(), 1e-10);
    EXPECT_TRUE(torch::allclose(V.grad(), from_json_matrix(ref[i]["grad_V"]), 1e-9, 1e-11));
    EXPECT_TRUE(torch::allclose(T.grad(), from_json_matrix(ref[i]["grad_T"]), 1e-9, 1e-11));
  }
}

TEST(HnContrastiveLoss, GammaZeroIsInfoNceBitForBit) {
  torch::manual_seed(3);
  for (int64_t b : {2, 5, 32}) {
    auto V = unit_rows(torch::randn({b, 16}));
    auto T = unit_rows(torch::randn({b, 16}));
    auto s = torch::tensor(100.0f);
    auto hn = hn_contrastive_loss(V, T, s, 0.0, T);
    auto plain = info_nce_loss(V, T, s);
    EXPECT_TRUE(torch::equal(hn.loss, plain))
        << hn.loss.item<float>() << " vs " << plain.item<float>();
    EXPECT_TRUE(torch::equal(hn.loss_standard, plain));
  }
}

TEST(HnContrastiveLoss, MarginsRaiseTheLossAndStandardLossIgnoresThem) {
  torch::manual_seed(4);
  auto T = unit_rows(torch::randn({8, 16}));
  auto V = unit_rows(T + 0.3 * torch::randn({8, 16}));
  auto s = torch::tensor(20.0f);
  auto plain = info_nce_loss(V, T, s);
  auto hn = hn_contrastive_loss(V, T, s, 0.5, T);
  EXPECT_TRUE(torch::equal(hn.loss_standard, plain));
  // Margins are only added to negatives' logits (and T Tᵀ > -1), so with correlated captions the
  // positives' share of the softmax falls: the boosted loss is larger.
  EXPECT_GT(hn.loss.item<float>(), plain.item<float>());
}

TEST(HnContrastiveLoss, NoGradientFlowsThroughGbar) {
  // Analytic gradient with Ḡ treated as a constant: dL/dT = s/(2B)[(P_i2t - I)ᵀ V + (P_t2i - I) V].
  torch::manual_seed(5);
  const int64_t b = 7, d = 5;
  const double s = 30.0, gamma = 1.0;
  auto T = unit_rows(torch::randn({b, d}, torch::kDouble)).requires_grad_(true);
  auto V = unit_rows(torch::randn({b, d}, torch::kDouble)).requires_grad_(true);
  auto result = hn_contrastive_loss(V, T, torch::tensor(s, torch::kDouble), gamma, T);
  result.loss.backward();

  torch::NoGradGuard no_grad;
  auto S = torch::matmul(V, T.t());
  auto G = torch::matmul(T, T.t());
  G.fill_diagonal_(0.0);
  auto eye = torch::eye(b, torch::kDouble);
  auto p_i2t = torch::softmax(s * (S + gamma * G), 1);
  auto p_t2i = torch::softmax(s * (S.t() + gamma * G), 1);
  auto dT = s / (2.0 * b) * (torch::matmul((p_i2t - eye).t(), V) + torch::matmul(p_t2i - eye, V));
  auto dV = s / (2.0 * b) * (torch::matmul(p_i2t - eye, T) + torch::matmul((p_t2i - eye).t(), T));
  EXPECT_TRUE(torch::allclose(T.grad(), dT, 1e-10, 1e-12));
  EXPECT_TRUE(torch::allclose(V.grad(), dV, 1e-10, 1e-12));
}

TEST(HnContrastiveLoss, CaptionMarginsHaveAZeroDiagonalAndNoGraph) {
  torch::manual_seed(6);
  auto T = unit_rows(torch::randn({6, 4})).requires_grad_(true);
  auto g = caption_margins(T);
  EXPECT_FALSE(g.requires_grad());
  EXPECT_TRUE(torch::equal(g.diagonal(), torch::zeros({6})));
  auto full = torch::matmul(T, T.t()).detach();
  full.fill_diagonal_(0.0f);
  EXPECT_TRUE(torch::equal(g, full));
}

TEST(HnContrastiveLoss, PositivesAreUntouchedInATwoPairBatch) {
  // With B = 2, Ḡ has one off-diagonal value g01: the logits must be s·S on the diagonal and
  // s·(S + γ g01) off it. Written out by hand.
  torch::manual_seed(8);
  auto T2 = unit_rows(torch::randn({2, 6}, torch::kDouble));
  auto V2 = unit_rows(torch::randn({2, 6}, torch::kDouble));
  const double s = 10.0, gamma = 0.5;
  const double hn =
      hn_contrastive_loss(V2, T2, torch::tensor(s, torch::kDouble), gamma, T2).loss.item<double>();
  const double g01 = torch::dot(T2[0], T2[1]).item<double>();
  auto S = torch::matmul(V2, T2.t());
  double expected = 0;
  for (bool transpose : {false, true}) {
    auto L = transpose ? S.t() : S;
    for (int i = 0; i < 2; ++i) {
      const double pos = s * L[i][i].item<double>();
      const double neg = s * (L[i][1 - i].item<double>() + gamma * g01);
      expected += 0.25 * (-pos + std::log(std::exp(pos) + std::exp(neg)));
    }
  }
  EXPECT_NEAR(hn, expected, 1e-12);
}

TEST(HnContrastiveLoss, RejectsBadGammaAndShapes) {
  auto T = unit_rows(torch::randn({4, 3}));
  auto s = torch::tensor(10.0f);
  EXPECT_THROW(hn_contrastive_loss(T, T, s, -0.1, T), std::invalid_argument);
  EXPECT_THROW(hn_contrastive_loss(T, T, s, std::nan(""), T), std::invalid_argument);
  EXPECT_THROW(hn_contrastive_loss(T, T, s, INFINITY, T), std::invalid_argument);
  EXPECT_THROW(hn_contrastive_loss(T, unit_rows(torch::randn({3, 3})), s, 0.5, T),
               std::invalid_argument);
  EXPECT_THROW(hn_contrastive_loss(T, T, s, 0.5, unit_rows(torch::randn({3, 3}))),
               std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
