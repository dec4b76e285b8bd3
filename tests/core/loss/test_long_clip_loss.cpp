// Tests core/loss/long_clip_loss: values and gradients against an independent python3-torch
// reference of Long-CLIP's training loss (float64; torch.svd as Long-CLIP calls it), the batch
// PCA against numpy's SVD, the HN branch swapped in for the long term, and the exact-PCA shortcut.

#include "loss/long_clip_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

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

struct LongClipCase {
  torch::Tensor V, T_long, T_short;
  double s, smoothing, gamma;
  int64_t k;
  bool hn;
};

TEST(LongClipLoss, MatchesIndependentPythonReferenceAndNumpyPca) {
  torch::manual_seed(3);
  std::vector<LongClipCase> cases;
  const int64_t b = 10, d = 12;
  for (bool hn : {false, true}) {
    for (int64_t k : {2, 5}) {
      for (double s : {10.0, 100.0}) {
        auto TL = unit_rows(torch::randn({b, d}, torch::kDouble));
        TL[1] = unit_rows((TL[0] + 0.05 * torch::randn({d}, torch::kDouble)).unsqueeze(0))[0];
        auto TS = unit_rows(TL + 0.5 * torch::randn({b, d}, torch::kDouble));
        auto V = unit_rows(TL + 0.7 * torch::randn({b, d}, torch::kDouble));
        cases.push_back({V, TL, TS, s, 0.1, hn ? 0.5 : 0.0, k, hn});
      }
    }
  }
  test::ScratchDir dir;
  json in{{"cases", json::array()}};
  for (const auto& c : cases) {
    in["cases"].push_back({{"V", to_json_matrix(c.V)}, {"T_long", to_json_matrix(c.T_long)},
                           {"T_short", to_json_matrix(c.T_short)}, {"s", c.s}, {"k", c.k},
                           {"smoothing", c.smoothing}, {"hn", c.hn}, {"gamma", c.gamma}});
  }
  const auto ref = test::run_reference_script("long_clip_reference.py", in, dir)["results"];
  ASSERT_EQ(ref.size(), cases.size());

  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i) + " hn=" + std::to_string(c.hn) + " k=" +
                 std::to_string(c.k) + " s=" + std::to_string(c.s));
    EXPECT_TRUE(torch::allclose(batch_pca(c.V, c.k), from_json_matrix(ref[i]["pca"]), 1e-9, 1e-11));
    auto V = c.V.clone().requires_grad_(true);
    auto TL = c.T_long.clone().requires_grad_(true);
    auto TS = c.T_short.clone().requires_grad_(true);
    LongClipOptions options;
    options.pca_components = c.k;
    options.label_smoothing = c.smoothing;
    const auto r = long_clip_loss(V, TL, TS, torch::tensor(c.s, torch::kDouble), c.hn, c.gamma,
                                  TL, options);
    r.loss.backward();
    EXPECT_NEAR(r.loss.item<double>(), ref[i]["loss"].get<double>(), 1e-9);
    EXPECT_NEAR(r.long_term.item<double>(), ref[i]["long"].get<double>(), 1e-9);
    EXPECT_NEAR(r.short_term.item<double>(), ref[i]["short"].get<double>(), 1e-9);
    EXPECT_TRUE(torch::allclose(V.grad(), from_json_matrix(ref[i]["grad_V"]), 1e-7, 1e-9));
    EXPECT_TRUE(torch::allclose(TL.grad(), from_json_matrix(ref[i]["grad_T_long"]), 1e-7, 1e-9));
    EXPECT_TRUE(torch::allclose(TS.grad(), from_json_matrix(ref[i]["grad_T_short"]), 1e-7, 1e-9));
  }
}

// With the margins on, the long branch is exactly the HN loss; at γ = 0 that is plain InfoNCE,
// which differs from Long-CLIP's own long branch only by the label smoothing.
TEST(LongClipLoss, HnOnReplacesOnlyTheLongBranch) {
  torch::manual_seed(4);
  const auto V = unit_rows(torch::randn({16, 8}));
  const auto TL = unit_rows(V + 0.5 * torch::randn({16, 8}));
  const auto TS = unit_rows(V + 0.9 * torch::randn({16, 8}));
  const auto s = torch::tensor(20.0f);
  LongClipOptions o;
  o.pca_components = 4;
  const auto on = long_clip_loss(V, TL, TS, s, true, 0.5, TL, o);
  const auto off = long_clip_loss(V, TL, TS, s, false, 0.5, TL, o);
  EXPECT_TRUE(torch::equal(on.short_term, off.short_term));
  EXPECT_TRUE(torch::equal(on.long_term, hn_contrastive_loss(V, TL, s, 0.5, TL).loss));
  o.label_smoothing = 0.0;
  const auto unsmoothed = long_clip_loss(V, TL, TS, s, false, 0.0, TL, o);
  const auto on_zero = long_clip_loss(V, TL, TS, s, true, 0.0, TL, o);
  EXPECT_NEAR(unsmoothed.long_term.item<double>(), on_zero.long_term.item<double>(), 1e-6);
}

TEST(LongClipLoss, PcaKeepsTheBatchMeanAndLowersTheRank) {
  torch::manual_seed(5);
  const auto x = torch::randn({40, 16}) + 3.0;
  const auto r = batch_pca(x, 3);
  EXPECT_TRUE(torch::allclose(r.mean(0), x.mean(0), 1e-5, 1e-5));
  const auto sv = torch::linalg_svdvals(r - r.mean(0, true));
  EXPECT_LT(sv[3].item<double>(), 1e-4 * sv[0].item<double>());  // rank 3 after centring
  // At the rank bound the reconstruction is exact: the features come back unchanged.
  const auto small = torch::randn({6, 16});
  EXPECT_TRUE(torch::equal(batch_pca(small, 5), small));
  EXPECT_THROW(batch_pca(x, 0), std::invalid_argument);
}

TEST(LongClipLoss, RefusesMismatchedShapesAndBadSmoothing) {
  const auto a = unit_rows(torch::randn({4, 3}));
  const auto s = torch::tensor(10.0f);
  EXPECT_THROW(long_clip_loss(a, a, a.slice(0, 0, 3), s, false, 0, a), std::invalid_argument);
  EXPECT_THROW(smoothed_clip_loss(a, a, s, 1.0), std::invalid_argument);
  EXPECT_THROW(smoothed_clip_loss(a, a, s, -0.1), std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
