// Tests core/loss/structxlip_loss: values and gradients (all six features and the scale) against
// an independent python3-torch reference in float64 with the HN margins on and off, the local
// term by hand, that each weight scales its own term only, no segments meaning no local term,
// and the shape, owner and weight errors.

#include "loss/structxlip_loss.h"

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

TEST(StructxlipLoss, MatchesIndependentPythonReference) {
  torch::manual_seed(31);
  struct Case {
    torch::Tensor V, T, E, F, K, C, TG;
    std::vector<int64_t> owner;
    double s, gamma;
    bool hn;
    StructxlipWeights w;
  };
  const int64_t b = 6, e = 8;
  std::vector<Case> cases;
  for (const auto& [hn, s, w] : std::vector<std::tuple<bool, double, StructxlipWeights>>{
           {false, 20.0, StructxlipWeights{}},
           {true, 40.0, StructxlipWeights{}},
           {true, 10.0, StructxlipWeights{1.3, 0.7, 2.1}}}) {
    Case c;
    c.T = unit_rows(torch::randn({b, e}, torch::kDouble));
    c.T[1] = unit_rows((c.T[0] + 0.05 * torch::randn({e}, torch::kDouble)).unsqueeze(0))[0];
    c.V = unit_rows(c.T + 0.7 * torch::randn({b, e}, torch::kDouble));
    c.E = unit_rows(c.V + 0.9 * torch::randn({b, e}, torch::kDouble));
    c.F = unit_rows(c.T + 0.6 * torch::randn({b, e}, torch::kDouble));
    // Four segments with 1, 3, 2 and 1 chunks, interleaved, so the grouping is not by position.
    c.owner = {1, 0, 2, 1, 3, 1, 2};
    c.K = unit_rows(torch::randn({4, e}, torch::kDouble));
    std::vector<torch::Tensor> chunks;
    for (int64_t o : c.owner) chunks.push_back(c.K[o] + 0.8 * torch::randn({e}, torch::kDouble));
    c.C = unit_rows(torch::stack(chunks));
    c.TG = unit_rows(c.T + 0.4 * torch::randn({b, e}, torch::kDouble));
    c.s = s;
    c.gamma = hn ? 0.5 : 0.0;
    c.hn = hn;
    c.w = w;
    cases.push_back(c);
  }
  test::ScratchDir dir;
  json in{{"cases", json::array()}};
  for (const auto& c : cases) {
    in["cases"].push_back({{"V", to_json_matrix(c.V)},
                           {"T", to_json_matrix(c.T)},
                           {"E", to_json_matrix(c.E)},
                           {"F", to_json_matrix(c.F)},
                           {"K", to_json_matrix(c.K)},
                           {"C", to_json_matrix(c.C)},
                           {"TG", to_json_matrix(c.TG)},
                           {"owner", c.owner},
                           {"s", c.s},
                           {"hn", c.hn},
                           {"gamma", c.gamma},
                           {"w_structure", c.w.structure},
                           {"w_consistency", c.w.consistency},
                           {"w_local", c.w.local}});
  }
  const auto ref = test::run_reference_script("structxlip_reference.py", in, dir)["results"];
  ASSERT_EQ(ref.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i));
    auto V = c.V.clone().requires_grad_(true), T = c.T.clone().requires_grad_(true);
    auto E = c.E.clone().requires_grad_(true), F = c.F.clone().requires_grad_(true);
    auto K = c.K.clone().requires_grad_(true), C = c.C.clone().requires_grad_(true);
    auto TG = c.TG.clone().requires_grad_(true);
    auto s = torch::tensor(c.s, torch::kDouble).requires_grad_(true);
    const auto owner = torch::tensor(c.owner, torch::kLong);
    const auto r = structxlip_loss(V, T, E, F, K, C, owner, s, c.hn, c.gamma, TG, c.w);
    r.loss.backward();
    EXPECT_NEAR(r.loss.item<double>(), ref[i]["loss"].get<double>(), 1e-9);
    EXPECT_NEAR(r.global_term.item<double>(), ref[i]["global"].get<double>(), 1e-9);
    EXPECT_NEAR(r.structure_term.item<double>(), ref[i]["structure"].get<double>(), 1e-9);
    EXPECT_NEAR(r.consistency_term.item<double>(), ref[i]["consistency"].get<double>(), 1e-9);
    EXPECT_NEAR(r.local_term.item<double>(), ref[i]["local"].get<double>(), 1e-9);
    EXPECT_GT(r.consistency_term.item<double>(), 1e-2);
    EXPECT_GT(r.local_term.item<double>(), 1e-2);
    const std::vector<std::pair<const char*, torch::Tensor>> grads{
        {"grad_V", V}, {"grad_T", T}, {"grad_E", E}, {"grad_F", F}, {"grad_K", K}, {"grad_C", C}};
    for (const auto& [key, x] : grads) {
      SCOPED_TRACE(key);
      ASSERT_TRUE(x.grad().defined());
      EXPECT_TRUE(torch::allclose(x.grad(), from_json_matrix(ref[i][key]), 1e-7, 1e-9));
    }
    const double grad_s = ref[i]["grad_s"].get<double>();
    EXPECT_NEAR(s.grad().item<double>(), grad_s, 1e-7 * std::max(1.0, std::abs(grad_s)));
    EXPECT_FALSE(TG.grad().defined() && TG.grad().abs().max().item<double>() > 0);
  }
}

// Two segments e1, e2 in E = 2; chunks e1, e1, e2 owned by 0, 0, 1.
TEST(StructxlipLoss, LocalTermByHand) {
  const auto e1 = torch::tensor({1.0, 0.0}, torch::kDouble);
  const auto e2 = torch::tensor({0.0, 1.0}, torch::kDouble);
  const auto anchors = torch::stack({e1, e2});
  const auto chunks = torch::stack({e1, e1, e2});
  const auto owner = torch::tensor(std::vector<int64_t>{0, 0, 1}, torch::kLong);
  const double s = 3.0;
  const auto got =
      multi_positive_info_nce(anchors, chunks, owner, torch::tensor(s, torch::kDouble));
  // Segment 0: logits (s, s, 0), positives the first two: −log(2e^s / (2e^s + 1)).
  // Segment 1: logits (0, 0, s), positive the last: −log(e^s / (e^s + 2)).
  const double seg = 0.5 * (-std::log(2 * std::exp(s) / (2 * std::exp(s) + 1)) -
                            std::log(std::exp(s) / (std::exp(s) + 2)));
  // Each chunk over the two segments: logits (s, 0) or (0, s), own one at s: log(1 + e^-s).
  const double chunk = std::log(1 + std::exp(-s));
  EXPECT_NEAR(got.item<double>(), 0.5 * (seg + chunk), 1e-12);
}

TEST(StructxlipLoss, WeightsScaleTheirOwnTermsAndHnOnlyTheGlobalTerm) {
  torch::manual_seed(32);
  const int64_t b = 8, e = 6;
  const auto V = unit_rows(torch::randn({b, e}));
  const auto T = unit_rows(V + 0.5 * torch::randn({b, e}));
  const auto E = unit_rows(V + 0.5 * torch::randn({b, e}));
  const auto F = unit_rows(T + 0.5 * torch::randn({b, e}));
  const auto K = unit_rows(torch::randn({3, e}));
  const auto C = unit_rows(torch::randn({5, e}));
  const auto owner = torch::tensor(std::vector<int64_t>{0, 1, 2, 2, 0}, torch::kLong);
  const auto TG = unit_rows(T + 0.3 * torch::randn({b, e}));
  const auto s = torch::tensor(30.0f);
  const auto base = structxlip_loss(V, T, E, F, K, C, owner, s, true, 0.5, TG);
  EXPECT_NEAR(base.loss.item<float>(),
              (base.global_term + 0.5 * base.structure_term + 0.05 * base.consistency_term +
               0.1 * base.local_term)
                  .item<float>(),
              1e-5);
  const auto other = structxlip_loss(V, T, E, F, K, C, owner, s, true, 0.5, TG, {2.0, 0.0, 1.0});
  EXPECT_TRUE(torch::equal(other.structure_term, base.structure_term));
  EXPECT_TRUE(torch::equal(other.consistency_term, base.consistency_term));
  EXPECT_TRUE(torch::equal(other.local_term, base.local_term));
  EXPECT_NEAR(other.loss.item<float>(),
              (base.global_term + 2.0 * base.structure_term + base.local_term).item<float>(),
              1e-5);
  EXPECT_TRUE(torch::equal(base.global_term, hn_contrastive_loss(V, T, s, 0.5, TG).loss));
  const auto off = structxlip_loss(V, T, E, F, K, C, owner, s, false, 0.5, TG);
  EXPECT_TRUE(torch::equal(off.global_term, info_nce_loss(V, T, s)));
  EXPECT_TRUE(torch::equal(off.structure_term, info_nce_loss(E, F, s)));
  EXPECT_FALSE(torch::equal(off.global_term, base.global_term));
  // No segments in the batch: the local term is 0 and the rest is unchanged.
  const auto bare = structxlip_loss(V, T, E, F, {}, {}, {}, s, true, 0.5, TG);
  EXPECT_EQ(bare.local_term.item<float>(), 0.0f);
  EXPECT_NEAR(bare.loss.item<float>(), (base.loss - 0.1 * base.local_term).item<float>(), 1e-5);
}

TEST(StructxlipLoss, ShapesOwnersAndWeightsAreChecked) {
  const auto x = unit_rows(torch::randn({4, 8}));
  const auto k = unit_rows(torch::randn({2, 8}));
  const auto c = unit_rows(torch::randn({3, 8}));
  const auto owner = torch::tensor(std::vector<int64_t>{0, 1, 1}, torch::kLong);
  const auto s = torch::tensor(10.0f);
  EXPECT_NO_THROW(structxlip_loss(x, x, x, x, k, c, owner, s, true, 0.5, x));
  for (int which = 0; which < 3; ++which) {
    std::vector<torch::Tensor> f(3, x);
    f[which] = unit_rows(torch::randn({3, 8}));
    EXPECT_THROW(structxlip_loss(x, f[0], f[1], f[2], k, c, owner, s, false, 0.0, x),
                 std::invalid_argument);
  }
  // An anchor without a positive, an owner out of range, a wrong owner length or type.
  try {
    multi_positive_info_nce(k, c, torch::tensor(std::vector<int64_t>{0, 0, 0}, torch::kLong), s);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("anchor 1 has no positive"), std::string::npos)
        << err.what();
  }
  EXPECT_THROW(multi_positive_info_nce(
                   k, c, torch::tensor(std::vector<int64_t>{0, 1, 2}, torch::kLong), s),
               std::invalid_argument);
  EXPECT_THROW(multi_positive_info_nce(k, c, owner.slice(0, 0, 2), s), std::invalid_argument);
  EXPECT_THROW(multi_positive_info_nce(k, c, owner.to(torch::kInt), s), std::invalid_argument);
  EXPECT_THROW(multi_positive_info_nce(k, unit_rows(torch::randn({3, 5})), owner, s),
               std::invalid_argument);
  // Chunks without segments (or the reverse) is a caller's bug, not "no local term".
  EXPECT_THROW(structxlip_loss(x, x, x, x, {}, c, owner, s, false, 0.0, x), std::invalid_argument);
  EXPECT_THROW(structxlip_loss(x, x, x, x, {}, {}, {}, torch::ones({2}), false, 0.0, x),
               std::invalid_argument);
  for (const auto& w : {StructxlipWeights{-1, 0.05, 0.1}, StructxlipWeights{0.5, NAN, 0.1},
                        StructxlipWeights{0.5, 0.05, -0.1}}) {
    EXPECT_THROW(structxlip_loss(x, x, x, x, k, c, owner, s, false, 0.0, x, w),
                 std::invalid_argument);
  }
}

}  // namespace
}  // namespace hnclip
