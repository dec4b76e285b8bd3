// Tests core/loss/debias_clip_loss: values and gradients against an independent python3-torch
// reference (float64), and that the HN margins replace the global term only.

#include "loss/debias_clip_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "loss/hn_contrastive_loss.h"
#include "loss/long_clip_loss.h"
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

TEST(DebiasClipLoss, MatchesIndependentPythonReference) {
  torch::manual_seed(6);
  struct Case {
    torch::Tensor V, T, TA;
    double s, smoothing, gamma;
    bool hn;
  };
  std::vector<Case> cases;
  const int64_t b = 9, d = 12;
  for (bool hn : {false, true}) {
    for (double s : {10.0, 100.0}) {
      auto T = unit_rows(torch::randn({b, d}, torch::kDouble));
      T[1] = unit_rows((T[0] + 0.05 * torch::randn({d}, torch::kDouble)).unsqueeze(0))[0];
      auto TA = unit_rows(T + 0.6 * torch::randn({b, d}, torch::kDouble));
      auto V = unit_rows(T + 0.7 * torch::randn({b, d}, torch::kDouble));
      cases.push_back({V, T, TA, s, hn ? 0.0 : 0.1, hn ? 0.5 : 0.0, hn});
    }
  }
  test::ScratchDir dir;
  json in{{"cases", json::array()}};
  for (const auto& c : cases) {
    in["cases"].push_back({{"V", to_json_matrix(c.V)}, {"T", to_json_matrix(c.T)},
                           {"T_aug", to_json_matrix(c.TA)}, {"s", c.s},
                           {"smoothing", c.smoothing}, {"hn", c.hn}, {"gamma", c.gamma}});
  }
  const auto ref = test::run_reference_script("debias_clip_reference.py", in, dir)["results"];
  ASSERT_EQ(ref.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i));
    auto V = c.V.clone().requires_grad_(true);
    auto T = c.T.clone().requires_grad_(true);
    auto TA = c.TA.clone().requires_grad_(true);
    const auto r = debias_clip_loss(V, T, TA, torch::tensor(c.s, torch::kDouble), c.hn, c.gamma,
                                    T, c.smoothing);
    r.loss.backward();
    EXPECT_NEAR(r.loss.item<double>(), ref[i]["loss"].get<double>(), 1e-9);
    EXPECT_NEAR(r.global_term.item<double>(), ref[i]["global"].get<double>(), 1e-9);
    EXPECT_NEAR(r.augmented_term.item<double>(), ref[i]["augmented"].get<double>(), 1e-9);
    EXPECT_TRUE(torch::allclose(V.grad(), from_json_matrix(ref[i]["grad_V"]), 1e-7, 1e-9));
    EXPECT_TRUE(torch::allclose(T.grad(), from_json_matrix(ref[i]["grad_T"]), 1e-7, 1e-9));
    EXPECT_TRUE(torch::allclose(TA.grad(), from_json_matrix(ref[i]["grad_T_aug"]), 1e-7, 1e-9));
  }
}

TEST(DebiasClipLoss, HnOnReplacesOnlyTheGlobalTermAndShapesAreChecked) {
  torch::manual_seed(7);
  const auto V = unit_rows(torch::randn({16, 8}));
  const auto T = unit_rows(V + 0.5 * torch::randn({16, 8}));
  const auto TA = unit_rows(V + 0.9 * torch::randn({16, 8}));
  const auto s = torch::tensor(20.0f);
  const auto on = debias_clip_loss(V, T, TA, s, true, 0.5, T, 0.1);
  const auto off = debias_clip_loss(V, T, TA, s, false, 0.0, T, 0.1);
  EXPECT_TRUE(torch::equal(on.augmented_term, off.augmented_term));
  EXPECT_TRUE(torch::equal(on.global_term, hn_contrastive_loss(V, T, s, 0.5, T).loss));
  EXPECT_TRUE(torch::equal(off.augmented_term, smoothed_clip_loss(V, TA, s, 0.1)));
  EXPECT_THROW(debias_clip_loss(V, T, TA.slice(0, 0, 8), s, false, 0, T, 0.1),
               std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
