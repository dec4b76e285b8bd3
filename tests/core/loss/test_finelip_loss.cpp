// Tests FineLIP's fine-grained loss (core/loss/finelip_loss) with its token aggregation
// (core/model/token_aggregator): values and gradients against an independent python3-torch
// reference in float64, hand-computed similarity and hinge values, padding that takes no weight,
// and the kept-token counts.

#include "loss/finelip_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "model/token_aggregator.h"
#include "support/json_matrix.h"
#include "support/reference_script.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

using nlohmann::json;
using test::from_json_array;
using test::to_json_array;

json aggregator_json(TokenAggregator& a) {
  return {{"norm_w", to_json_array(a->norm->weight)}, {"norm_b", to_json_array(a->norm->bias)},
          {"fc1_w", to_json_array(a->fc1->weight)},   {"fc1_b", to_json_array(a->fc1->bias)},
          {"fc2_w", to_json_array(a->fc2->weight)},   {"fc2_b", to_json_array(a->fc2->bias)},
          {"scale", to_json_array(a->scale.flatten()[0])}};
}

TEST(FinelipLoss, MatchesIndependentPythonReference) {
  torch::manual_seed(11);
  const int64_t b = 5, n = 9, l = 7, d = 10;
  test::ScratchDir dir;
  json in{{"cases", json::array()}};
  struct Case {
    TokenAggregator image{nullptr}, text{nullptr};
    torch::Tensor patches, words, mask, ig, tg;
    bool hardest;
  };
  std::vector<Case> cases;
  for (bool hardest : {false, true}) {
    Case c;
    c.image = TokenAggregator(d, 3);
    c.text = TokenAggregator(d, 2);
    c.image->to(torch::kDouble);
    c.text->to(torch::kDouble);
    {
      torch::NoGradGuard no_grad;  // non-trivial gains, biases and scale
      for (auto& p : c.image->parameters()) p.add_(0.3 * torch::randn_like(p));
      for (auto& p : c.text->parameters()) p.add_(0.3 * torch::randn_like(p));
    }
    c.patches = torch::randn({b, n, d}, torch::kDouble);
    c.words = torch::randn({b, l, d}, torch::kDouble);
    c.mask = torch::arange(l).unsqueeze(0) < torch::tensor({7, 3, 5, 1, 6}).unsqueeze(1);
    c.ig = torch::randn({b, d}, torch::kDouble);
    c.tg = c.ig + 0.8 * torch::randn({b, d}, torch::kDouble);
    c.hardest = hardest;
    in["cases"].push_back({{"patches", to_json_array(c.patches)},
                           {"words", to_json_array(c.words)},
                           {"word_mask", to_json_array(c.mask.to(torch::kDouble))},
                           {"image_global", to_json_array(c.ig)},
                           {"text_global", to_json_array(c.tg)},
                           {"image_agg", aggregator_json(c.image)},
                           {"text_agg", aggregator_json(c.text)},
                           {"margin", 0.2},
                           {"slope", 0.1},
                           {"hardest", hardest}});
    cases.push_back(c);
  }
  const auto ref = test::run_reference_script("finelip_reference.py", in, dir)["results"];
  ASSERT_EQ(ref.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    auto& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i));
    auto patches = c.patches.clone().requires_grad_(true);
    auto words = c.words.clone().requires_grad_(true);
    const auto image_set = finelip_token_set(c.image, patches, {}, c.ig);
    const auto text_set = finelip_token_set(c.text, words, c.mask, c.tg);
    EXPECT_EQ(image_set.size(1), 4);  // 3 aggregated + the global feature
    const auto sim = finelip_similarity(image_set, text_set, 0.1);
    EXPECT_TRUE(torch::allclose(sim, from_json_array(ref[i]["similarity"]), 1e-10, 1e-12));
    FinelipOptions o;
    o.hardest_negative = c.hardest;
    const auto loss = finelip_loss(image_set, text_set, o);
    loss.backward();
    EXPECT_NEAR(loss.item<double>(), ref[i]["loss"].get<double>(), 1e-9);
    EXPECT_TRUE(torch::allclose(patches.grad(), from_json_array(ref[i]["grad_patches"]), 1e-7, 1e-9));
    EXPECT_TRUE(torch::allclose(words.grad(), from_json_array(ref[i]["grad_words"]), 1e-7, 1e-9));
    EXPECT_TRUE(torch::allclose(c.image->fc2->weight.grad(),
                                from_json_array(ref[i]["grad_image_fc2_w"]), 1e-7, 1e-9));
    EXPECT_NEAR(c.text->scale.grad().item<double>(), ref[i]["grad_text_scale"].get<double>(),
                1e-7 * std::max(1.0, std::abs(ref[i]["grad_text_scale"].get<double>())));
  }
}

// By hand: one image token and two text tokens per side, so every max and mean is visible.
TEST(FinelipLoss, SimilarityAndHingeByHand) {
  // Image 0 = e1; image 1 = e2. Caption 0 = {e1, -e2}; caption 1 = {e2, e2}.
  const auto e1 = torch::tensor({1.0, 0.0}, torch::kDouble), e2 = torch::tensor({0.0, 1.0}, torch::kDouble);
  const auto images = torch::stack({e1.unsqueeze(0), e2.unsqueeze(0)});
  const auto texts = torch::stack({torch::stack({e1, -e2}), torch::stack({e2, e2})});
  const auto s = finelip_similarity(images, texts, 0.1);
  // (0,0): A = [1, 0] → text-side mean of max over image = (1 + 0)/2, image-side max = 1 → 1.5.
  EXPECT_NEAR(s[0][0].item<double>(), 1.5, 1e-12);
  // (0,1): A = [0, 0] → 0.
  EXPECT_NEAR(s[0][1].item<double>(), 0.0, 1e-12);
  // (1,0): A = [0, lrelu(-1) = -0.1] → (0 − 0.1)/2 + max(0, −0.1) = −0.05.
  EXPECT_NEAR(s[1][0].item<double>(), -0.05, 1e-12);
  // (1,1): A = [1, 1] → 1 + 1 = 2.
  EXPECT_NEAR(s[1][1].item<double>(), 2.0, 1e-12);
  // Hinge at margin 0.2: every off-diagonal violation is m + S_ij − S_ii (rows) or − S_jj.
  // (0,1) row: 0.2 + 0 − 1.5 < 0; column: 0.2 + 0 − 2 < 0. (1,0) row: 0.2 − 0.05 − 2 < 0;
  // column: 0.2 − 0.05 − 1.5 < 0. No violations: 0. At margin 1.6: (0,1) row 0.1, (1,0) column 0.05.
  EXPECT_NEAR(triplet_hinge_loss(s, 0.2, false).item<double>(), 0.0, 1e-12);
  EXPECT_NEAR(triplet_hinge_loss(s, 1.6, false).item<double>(), 0.1 + 0.05, 1e-12);
  EXPECT_NEAR(triplet_hinge_loss(s, 1.6, true).item<double>(), 0.1 + 0.05, 1e-12);
  EXPECT_THROW(triplet_hinge_loss(s.slice(0, 0, 1), 0.2, false), std::invalid_argument);
  EXPECT_THROW(finelip_similarity(images, texts.slice(2, 0, 1), 0.1), std::invalid_argument);
}

TEST(FinelipLoss, PaddingTakesNoWeightAndKeptTokensFollowTheRatio) {
  torch::manual_seed(12);
  TokenAggregator a(6, 2);
  const auto x = torch::randn({1, 5, 6});
  const auto mask = torch::tensor({true, true, true, false, false}).unsqueeze(0);
  auto junk = x.clone();
  junk.slice(1, 3, 5).fill_(100.0);
  // Whatever the padded positions hold, the pooled tokens are the same.
  EXPECT_TRUE(torch::allclose(a->forward(x, mask), a->forward(junk, mask), 1e-6, 1e-6));
  EXPECT_FALSE(torch::allclose(a->forward(x), a->forward(junk), 1e-3, 1e-3));
  EXPECT_EQ(finelip_kept_tokens(36), 7);    // the tiny model's 6×6 patches
  EXPECT_EQ(finelip_kept_tokens(196), 39);  // ViT-B/16 at 224
  EXPECT_EQ(finelip_kept_tokens(2), 1);     // at least one
}

}  // namespace
}  // namespace hnclip
