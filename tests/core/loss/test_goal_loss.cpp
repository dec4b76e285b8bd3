// Tests core/loss/goal_loss: values and gradients (all six features and the scale) against an
// independent python3-torch reference in float64 with the HN margins on and off, hand-computed
// local terms, that crop_weight scales the crop term only, masked_token_mean by hand, and the
// shape and empty-row errors.

#include "loss/goal_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "loss/hn_contrastive_loss.h"
#include "support/json_matrix.h"
#include "support/reference_script.h"
#include "support/test_dirs.h"
#include "support/unit_rows.h"

namespace hnclip {
namespace {

using nlohmann::json;
using test::from_json_matrix;
using test::to_json_matrix;

using test::unit_rows;

TEST(GoalLoss, MatchesIndependentPythonReference) {
  torch::manual_seed(21);
  struct Case {
    torch::Tensor V, T, C, P, R, Q, TG;
    double s, gamma, crop_weight;
    bool hn;
  };
  const int64_t b = 7, e = 10;
  std::vector<Case> cases;
  // HN off; HN on with Ḡ from separate (frozen-encoder-like) features; and a non-default weight
  // with pooled features of length ~1e-3, where GOAL's +1e-8 moves the local terms by ~1e-5 (at
  // lengths of a few it moves them by ~1e-9, too close to the tolerance to pin it down).
  for (const auto& [hn, s, cw, length] : std::vector<std::tuple<bool, double, double, double>>{
           {false, 20.0, 0.5, 1.0}, {true, 50.0, 0.5, 1.0}, {true, 10.0, 1.7, 1e-3}}) {
    Case c;
    c.T = unit_rows(torch::randn({b, e}, torch::kDouble));
    // Near-duplicate captions, so Ḡ has a large entry.
    c.T[1] = unit_rows((c.T[0] + 0.05 * torch::randn({e}, torch::kDouble)).unsqueeze(0))[0];
    c.V = unit_rows(c.T + 0.7 * torch::randn({b, e}, torch::kDouble));
    c.C = unit_rows(c.V + 0.8 * torch::randn({b, e}, torch::kDouble));
    c.P = unit_rows(c.C + 0.6 * torch::randn({b, e}, torch::kDouble));
    // Pooled features are not unit length: scales of a few, partly aligned with their targets.
    c.R = length * (3.0 * c.C + 1.5 * torch::randn({b, e}, torch::kDouble));
    c.Q = length * (0.4 * c.P + 0.3 * torch::randn({b, e}, torch::kDouble));
    c.TG = unit_rows(c.T + 0.4 * torch::randn({b, e}, torch::kDouble));
    c.s = s;
    c.gamma = hn ? 0.5 : 0.0;
    c.crop_weight = cw;
    c.hn = hn;
    cases.push_back(c);
  }
  test::ScratchDir dir;
  json in{{"cases", json::array()}};
  for (const auto& c : cases) {
    in["cases"].push_back({{"V", to_json_matrix(c.V)},
                           {"T", to_json_matrix(c.T)},
                           {"C", to_json_matrix(c.C)},
                           {"P", to_json_matrix(c.P)},
                           {"R", to_json_matrix(c.R)},
                           {"Q", to_json_matrix(c.Q)},
                           {"TG", to_json_matrix(c.TG)},
                           {"s", c.s},
                           {"hn", c.hn},
                           {"gamma", c.gamma},
                           {"crop_weight", c.crop_weight}});
  }
  const auto ref = test::run_reference_script("goal_reference.py", in, dir)["results"];
  ASSERT_EQ(ref.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i));
    auto V = c.V.clone().requires_grad_(true), T = c.T.clone().requires_grad_(true);
    auto C = c.C.clone().requires_grad_(true), P = c.P.clone().requires_grad_(true);
    auto R = c.R.clone().requires_grad_(true), Q = c.Q.clone().requires_grad_(true);
    auto TG = c.TG.clone().requires_grad_(true);
    auto s = torch::tensor(c.s, torch::kDouble).requires_grad_(true);
    const auto r = goal_loss(V, T, C, P, R, Q, s, c.hn, c.gamma, TG, c.crop_weight);
    r.loss.backward();
    EXPECT_NEAR(r.loss.item<double>(), ref[i]["loss"].get<double>(), 1e-9);
    EXPECT_NEAR(r.global_term.item<double>(), ref[i]["global"].get<double>(), 1e-9);
    EXPECT_NEAR(r.crop_term.item<double>(), ref[i]["crop"].get<double>(), 1e-9);
    EXPECT_NEAR(r.patch_term.item<double>(), ref[i]["patch"].get<double>(), 1e-9);
    EXPECT_NEAR(r.text_term.item<double>(), ref[i]["text"].get<double>(), 1e-9);
    // The local terms are not trivially small here, so the comparison above means something.
    EXPECT_GT(r.patch_term.item<double>(), 1e-3);
    EXPECT_GT(r.text_term.item<double>(), 1e-3);
    const std::vector<std::pair<const char*, torch::Tensor>> grads{
        {"grad_V", V}, {"grad_T", T}, {"grad_C", C}, {"grad_P", P}, {"grad_R", R}, {"grad_Q", Q}};
    for (const auto& [key, x] : grads) {
      SCOPED_TRACE(key);
      ASSERT_TRUE(x.grad().defined());
      EXPECT_TRUE(torch::allclose(x.grad(), from_json_matrix(ref[i][key]), 1e-7, 1e-9));
    }
    const double grad_s = ref[i]["grad_s"].get<double>();
    EXPECT_NEAR(s.grad().item<double>(), grad_s, 1e-7 * std::max(1.0, std::abs(grad_s)));
    // Ḡ is a margin, never a path for gradients.
    EXPECT_FALSE(TG.grad().defined() && TG.grad().abs().max().item<double>() > 0);
  }
}

// Two rows, E = 2, so every cosine is visible. Crop images e1, e1; sentences e2, e2.
TEST(GoalLoss, LocalTermsByHand) {
  const auto e1 = torch::tensor({1.0, 0.0}, torch::kDouble);
  const auto e2 = torch::tensor({0.0, 1.0}, torch::kDouble);
  const auto crop = torch::stack({e1, e1}), sentence = torch::stack({e2, e2});
  const auto image = torch::stack({e1, e2}), text = torch::stack({e1, e2});
  const auto s = torch::tensor(10.0, torch::kDouble);
  // Same directions at other lengths: cos = 1 (to ~1e-16 with GOAL's +1e-8), both terms 0.
  const auto aligned =
      goal_loss(image, text, crop, sentence, 3.7 * crop, 0.4 * sentence, s, false, 0.0, text);
  EXPECT_NEAR(aligned.patch_term.item<double>(), 0.0, 1e-12);
  EXPECT_NEAR(aligned.text_term.item<double>(), 0.0, 1e-12);
  // Patch row 1 points away from its crop (cos −1, (−2)² = 4): mean (0 + 4)/2 = 2. Span row 1 is
  // (1, 1) against e2 (cos 1/√2): mean (0 + (1/√2 − 1)²)/2.
  const auto region = torch::stack({2.0 * e1, -3.0 * e1});
  const auto span = torch::stack({0.5 * e2, torch::tensor({1.0, 1.0}, torch::kDouble)});
  const auto r = goal_loss(image, text, crop, sentence, region, span, s, false, 0.0, text);
  EXPECT_NEAR(r.patch_term.item<double>(), 2.0, 1e-12);
  EXPECT_NEAR(r.text_term.item<double>(), 0.5 * std::pow(1.0 / std::sqrt(2.0) - 1.0, 2), 1e-12);
  // The crop term here: logits s·C Pᵀ are all 0 (e1 ⟂ e2), so each CE is log 2.
  EXPECT_NEAR(r.crop_term.item<double>(), std::log(2.0), 1e-12);
  EXPECT_NEAR(r.loss.item<double>(),
              r.global_term.item<double>() + 0.5 * std::log(2.0) + r.patch_term.item<double>() +
                  r.text_term.item<double>(),
              1e-12);
}

TEST(GoalLoss, CropWeightScalesOnlyTheCropTermAndHnOnlyTheGlobalTerm) {
  torch::manual_seed(22);
  const int64_t b = 8, e = 6;
  const auto V = unit_rows(torch::randn({b, e}));
  const auto T = unit_rows(V + 0.5 * torch::randn({b, e}));
  const auto C = unit_rows(V + 0.5 * torch::randn({b, e}));
  const auto P = unit_rows(C + 0.5 * torch::randn({b, e}));
  const auto R = 2.0 * C + torch::randn({b, e});
  const auto Q = 0.5 * P + 0.5 * torch::randn({b, e});
  const auto TG = unit_rows(T + 0.3 * torch::randn({b, e}));
  const auto s = torch::tensor(30.0f);
  const auto half = goal_loss(V, T, C, P, R, Q, s, true, 0.5, TG);  // the default, 0.5
  const auto two = goal_loss(V, T, C, P, R, Q, s, true, 0.5, TG, 2.0);
  const auto none = goal_loss(V, T, C, P, R, Q, s, true, 0.5, TG, 0.0);
  for (const auto* r : {&two, &none}) {
    EXPECT_TRUE(torch::equal(r->global_term, half.global_term));
    EXPECT_TRUE(torch::equal(r->crop_term, half.crop_term));
    EXPECT_TRUE(torch::equal(r->patch_term, half.patch_term));
    EXPECT_TRUE(torch::equal(r->text_term, half.text_term));
  }
  EXPECT_GT(half.crop_term.item<float>(), 0.1f);
  EXPECT_NEAR(two.loss.item<float>() - half.loss.item<float>(), 1.5f * half.crop_term.item<float>(),
              1e-5);
  EXPECT_NEAR(none.loss.item<float>(),
              (half.global_term + half.patch_term + half.text_term).item<float>(), 1e-5);
  // The global term is the HN loss with the run's γ and Ḡ, or plain InfoNCE; the rest stay put.
  EXPECT_TRUE(torch::equal(half.global_term, hn_contrastive_loss(V, T, s, 0.5, TG).loss));
  const auto off = goal_loss(V, T, C, P, R, Q, s, false, 0.5, TG);
  EXPECT_TRUE(torch::equal(off.global_term, info_nce_loss(V, T, s)));
  EXPECT_FALSE(torch::equal(off.global_term, half.global_term));
  EXPECT_TRUE(torch::equal(off.crop_term, half.crop_term));
  EXPECT_TRUE(torch::equal(off.crop_term, info_nce_loss(C, P, s)));
}

TEST(GoalLoss, ShapesScaleAndWeightAreChecked) {
  const auto x = unit_rows(torch::randn({4, 8}));
  const auto s = torch::tensor(10.0f);
  // Each of the six features with a different batch, then a different width.
  for (int which = 0; which < 6; ++which) {
    for (const auto& bad : {unit_rows(torch::randn({3, 8})), unit_rows(torch::randn({4, 5}))}) {
      SCOPED_TRACE("feature " + std::to_string(which));
      std::vector<torch::Tensor> f(6, x);
      f[which] = bad;
      EXPECT_THROW(goal_loss(f[0], f[1], f[2], f[3], f[4], f[5], s, false, 0.0, x),
                   std::invalid_argument);
    }
  }
  try {
    goal_loss(x, x, x.slice(0, 0, 3), x, x, x, s, false, 0.0, x);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("crop_image"), std::string::npos) << err.what();
  }
  EXPECT_THROW(goal_loss(x, x, x, x, x, x, torch::ones({2}), false, 0.0, x), std::invalid_argument);
  EXPECT_THROW(goal_loss(x, x, x, x, x, x, s, false, 0.0, x, -0.5), std::invalid_argument);
  EXPECT_THROW(goal_loss(x, x, x, x, x, x, s, true, 0.5, x.slice(0, 0, 2)), std::invalid_argument);
  EXPECT_NO_THROW(goal_loss(x, x, x, x, x, x, s, true, 0.5, x));
}

TEST(GoalLoss, MaskedTokenMeanByHand) {
  // Row 0 keeps tokens 0 and 2; row 1 keeps token 1. The masked-out positions hold NaN / inf,
  // which must not reach the mean.
  const double nan = std::nan(""), inf = INFINITY;
  auto tokens = torch::tensor({1.0, 2.0, nan, nan, 5.0, -4.0,  //
                               inf, 0.0, 3.0, 7.0, -inf, nan},
                              torch::kDouble)
                    .view({2, 3, 2})
                    .requires_grad_(true);
  const auto mask = torch::tensor({true, false, true, false, true, false}).view({2, 3});
  const auto m = masked_token_mean(tokens, mask);
  ASSERT_EQ(m.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_NEAR(m[0][0].item<double>(), (1.0 + 5.0) / 2, 1e-12);
  EXPECT_NEAR(m[0][1].item<double>(), (2.0 - 4.0) / 2, 1e-12);
  EXPECT_NEAR(m[1][0].item<double>(), 3.0, 1e-12);
  EXPECT_NEAR(m[1][1].item<double>(), 7.0, 1e-12);
  // d mean / d token = 1/count where kept, 0 elsewhere.
  m.sum().backward();
  const auto expected = torch::tensor({0.5, 0.5, 0.0, 0.0, 0.5, 0.5,  //
                                       0.0, 0.0, 1.0, 1.0, 0.0, 0.0},
                                      torch::kDouble)
                            .view({2, 3, 2});
  EXPECT_TRUE(torch::equal(tokens.grad(), expected));
}

TEST(GoalLoss, MaskedTokenMeanRejectsAnEmptyRowAndBadShapes) {
  const auto tokens = torch::randn({3, 4, 2});
  auto mask = torch::ones({3, 4}, torch::kBool);
  mask[1].fill_(false);
  try {
    masked_token_mean(tokens, mask);
    ADD_FAILURE() << "no throw for an empty row";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("row 1"), std::string::npos) << err.what();
  }
  mask[1][3] = true;
  EXPECT_NO_THROW(masked_token_mean(tokens, mask));
  EXPECT_THROW(masked_token_mean(tokens, mask.to(torch::kFloat)), std::invalid_argument);
  EXPECT_THROW(masked_token_mean(tokens, mask.slice(1, 0, 3)), std::invalid_argument);
  EXPECT_THROW(masked_token_mean(tokens, mask.slice(0, 0, 2)), std::invalid_argument);
  EXPECT_THROW(masked_token_mean(tokens[0], mask[0]), std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
