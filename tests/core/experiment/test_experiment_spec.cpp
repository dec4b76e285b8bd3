// Tests of core/experiment/experiment_spec.cpp: the grid's expansion (order, controls, roles,
// labels, deduplication), axis parsing typed by the config key, and every refusal naming what it
// refuses.

#include "experiment/experiment_spec.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "experiment/experiment_presets.h"

namespace hnclip {
namespace {

ExperimentSpec gamma_spec(std::vector<nlohmann::json> gammas) {
  ExperimentSpec s;
  s.name = "t";
  s.base = {{"logit_scale", 100.0}, {"fixed_scale", true}, {"epochs", 2}};
  s.axes = {{"loss_gamma", std::move(gammas)}};
  s.seeds = {1, 2};
  return s;
}

std::string message_of(const ExperimentSpec& spec, bool confirmed = false) {
  try {
    expand_experiment(spec, confirmed);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ExperimentSpec, GammaAxisGetsPairedLearntAndFixedScaleControls) {
  auto spec = gamma_spec({0.5});
  spec.control_scales = {10, 100};
  const auto plan = expand_experiment(spec, false);
  // γ 0.5 at s 100; paired γ 0 at s 100 (= the fixed 100 control, deduplicated); learnt; s 10.
  ASSERT_EQ(plan.cells.size(), 4u);
  EXPECT_EQ(plan.cells[0].role, kRoleMethod);
  EXPECT_EQ(plan.cells[0].label, "HN γ 0.5 · s 100 fixed");
  EXPECT_EQ(plan.cells[1].role, kRolePaired);
  EXPECT_EQ(plan.cells[1].label, "InfoNCE · s 100 fixed");
  EXPECT_EQ(plan.cells[1].config.loss_gamma, 0.0);
  EXPECT_EQ(plan.cells[2].role, kRoleLearnableScale);
  EXPECT_FALSE(plan.cells[2].config.fixed_scale);
  EXPECT_EQ(plan.cells[2].config.logit_scale, 0.0);  // learnt from the checkpoint's own s
  EXPECT_EQ(plan.cells[3].role, kRoleFixedScale);
  EXPECT_EQ(plan.cells[3].label, "InfoNCE · s 10 fixed");
  // Controls differ from the method only in γ and the scale.
  for (const auto& c : plan.cells) {
    EXPECT_EQ(control_context(c.config), control_context(plan.cells[0].config)) << c.label;
    EXPECT_EQ(c.config.epochs, 2);
  }
  EXPECT_EQ(plan.slots.size(), 8u);
}

TEST(ExperimentSpec, AnAxisZeroIsThePairedControlNotASecondCell) {
  const auto plan = expand_experiment(gamma_spec({0.0, 0.25, 0.5}), false);
  // γ 0 (paired), 0.25, 0.5, learnt, s 10, 20, 50 (s 100 is the axis's γ 0 cell).
  ASSERT_EQ(plan.cells.size(), 7u);
  EXPECT_EQ(plan.cells[0].role, kRolePaired);
  EXPECT_EQ(plan.cells[1].role, kRoleMethod);
  EXPECT_EQ(plan.cells[2].role, kRoleMethod);
  std::set<std::string> labels;
  for (const auto& c : plan.cells) EXPECT_TRUE(labels.insert(c.label).second) << c.label;
}

TEST(ExperimentSpec, NoControlsLeavesOnlyTheGrid) {
  auto spec = gamma_spec({0.5});
  spec.controls = false;
  const auto plan = expand_experiment(spec, false);
  ASSERT_EQ(plan.cells.size(), 1u);
  EXPECT_EQ(plan.cells[0].role, kRoleMethod);
}

TEST(ExperimentSpec, GammaZeroAloneIsABaseline) {
  const auto plan = expand_experiment(gamma_spec({0.0}), false);
  ASSERT_EQ(plan.cells.size(), 1u);
  EXPECT_EQ(plan.cells[0].role, kRoleBaseline);
}

TEST(ExperimentSpec, ProductOrderFirstAxisSlowestAndSeedsPerCell) {
  ExperimentSpec s;
  s.controls = false;
  s.axes = {{"lr", {1e-4, 5e-4}}, {"batch_size", {32, 64, 128}}};
  s.seeds = {7, 3};
  const auto plan = expand_experiment(s, false);
  ASSERT_EQ(plan.cells.size(), 6u);
  EXPECT_EQ(plan.cells[0].config.lr, 1e-4);
  EXPECT_EQ(plan.cells[0].config.batch_size, 32);
  EXPECT_EQ(plan.cells[2].config.batch_size, 128);
  EXPECT_EQ(plan.cells[3].config.lr, 5e-4);
  ASSERT_EQ(plan.slots.size(), 12u);
  EXPECT_EQ(plan.slots[0].seed, 7u);
  EXPECT_EQ(plan.slots[1].seed, 3u);
  EXPECT_EQ(plan.slots[1].config.seed, 3u);
  EXPECT_EQ(plan.slots[2].cell, 1);
  // Each run carries the experiment's name, its cell and seed.
  EXPECT_NE(plan.slots[1].config.name.find("seed 3"), std::string::npos);
}

TEST(ExperimentSpec, ControlsArePerContextOfTheOtherAxes) {
  ExperimentSpec s = gamma_spec({0.5});
  s.axes.push_back({"data_fraction", {0.5, 1.0}});
  s.control_scales = {10};
  const auto plan = expand_experiment(s, false);
  // Per fraction: method, paired (s 100), learnt, s 10.
  ASSERT_EQ(plan.cells.size(), 8u);
  int paired_half = 0;
  for (const auto& c : plan.cells) {
    if (c.role == kRolePaired && c.config.data_fraction == 0.5) ++paired_half;
  }
  EXPECT_EQ(paired_half, 1);
  EXPECT_NE(plan.cells.back().label.find("data_fraction 1"), std::string::npos)
      << plan.cells.back().label;
}

TEST(ExperimentSpec, FrozenGbarMatchesOnlyWhereGammaIsPositive) {
  ExperimentSpec s = gamma_spec({0.5});
  s.axes.push_back({"loss_gbar", {"recomputed", "frozen"}});
  s.control_scales = {};
  const auto plan = expand_experiment(s, false);
  // Two methods (recomputed, frozen) share one context: one paired γ 0 cell, one learnt.
  ASSERT_EQ(plan.cells.size(), 4u) << plan.cells.back().label;
  EXPECT_EQ(plan.cells[1].label, "HN γ 0.5 Ḡ frozen · s 100 fixed");
  EXPECT_EQ(plan.cells[2].config.loss_gbar, GbarMode::kRecomputed);
}

// A framework axis: each framework's method (the HN loss in its global term) is paired with the
// framework as published (--hn off, γ 0) — Table A4's "+ LHN" row against its framework's row —
// while plain's control stays plain InfoNCE (one spelling with or without "HN at γ 0").
TEST(ExperimentSpec, AFrameworksControlIsItsOwnLossWithoutTheMargins) {
  ExperimentSpec s = gamma_spec({0.5});
  s.axes.push_back({"framework", {"plain", "longclip"}});
  s.control_scales = {};
  const auto plan = expand_experiment(s, false);
  // Per framework: method, paired (s 100 fixed), learnt.
  ASSERT_EQ(plan.cells.size(), 6u);
  std::map<std::string, const ExperimentCell*> paired;
  for (const auto& c : plan.cells) {
    if (c.role == kRolePaired) paired[to_string(c.config.framework)] = &c;
  }
  ASSERT_EQ(paired.size(), 2u);
  EXPECT_TRUE(paired["plain"]->config.hn);
  EXPECT_FALSE(paired["longclip"]->config.hn);
  EXPECT_EQ(paired["longclip"]->config.loss_gamma, 0.0);
  EXPECT_NE(paired["longclip"]->label.find("longclip's own loss"), std::string::npos)
      << paired["longclip"]->label;
  for (const auto& c : plan.cells) {
    if (c.config.framework == Framework::kLongClip && c.config.loss_gamma > 0) {
      EXPECT_TRUE(c.config.hn) << c.label;
      EXPECT_EQ(control_context(c.config), control_context(paired["longclip"]->config));
    }
  }
}

TEST(ExperimentSpec, ParallelSplitsTheThreads) {
  auto spec = gamma_spec({0.5});
  spec.base["threads"] = 2;
  spec.parallel = 2;
  for (const auto& slot : expand_experiment(spec, false).slots) EXPECT_EQ(slot.config.threads, 1);
}

TEST(ExperimentSpec, SeedAxisReplacesTheSeedList) {
  auto spec = gamma_spec({0.5});
  spec.axes.push_back(parse_axis("seed=4,5,6"));
  const auto plan = expand_experiment(spec, false);
  EXPECT_EQ(plan.slots.size(), plan.cells.size() * 3);
  EXPECT_EQ(plan.slots[2].seed, 6u);
}

TEST(ExperimentSpec, AxisValuesAreTypedLikeTheKey) {
  const auto g = parse_axis("loss_gamma=0,0.25");
  EXPECT_TRUE(g.values[0].is_number_float());
  EXPECT_EQ(g.values[1].get<double>(), 0.25);
  const auto b = parse_axis("batch_size=32,64");
  EXPECT_TRUE(b.values[0].is_number_integer());
  const auto f = parse_axis("fixed_scale=true,false");
  EXPECT_TRUE(f.values[0].is_boolean());
  const auto w = parse_axis("loss_gbar=recomputed,frozen");
  EXPECT_EQ(w.values[1].get<std::string>(), "frozen");
}

TEST(ExperimentSpec, BadAxesAreRefusedNamingKeyAndValue) {
  auto expect_refusal = [](const std::string& text, const std::string& needle) {
    try {
      parse_axis(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_refusal("loss_gama=0,1",
                 "'loss_gama' is not a run configuration key (did you mean 'loss_gamma'?)");
  expect_refusal("loss_gamma", "expected KEY=V1,V2");
  expect_refusal("loss_gamma=", "no values");
  expect_refusal("loss_gamma=0,,1", "an empty value");
  expect_refusal("loss_gamma=abc", "--set loss_gamma=abc");
  expect_refusal("batch_size=1.5", "batch_size takes an integer");
  expect_refusal("fixed_scale=yes", "takes true or false");
  expect_refusal("name=a,b", "'name' is not a run configuration key");
}

TEST(ExperimentSpec, ValuesTheCoreRefusesAreNamedBeforeAnythingRuns) {

  EXPECT_NE(message_of(gamma_spec({-1.0})).find("--set loss_gamma=-1: --gamma must be"),
            std::string::npos)
      << message_of(gamma_spec({-1.0}));
  ExperimentSpec gbar = gamma_spec({0.5});
  gbar.axes.push_back({"loss_gbar", {"sometimes"}});
  EXPECT_NE(message_of(gbar).find("--gbar must be"), std::string::npos) << message_of(gbar);
  ExperimentSpec empty = gamma_spec({});
  EXPECT_NE(message_of(empty).find("empty grid"), std::string::npos);
  ExperimentSpec twice = gamma_spec({0.5});
  twice.axes.push_back({"loss_gamma", {1.0}});
  EXPECT_NE(message_of(twice).find("given twice"), std::string::npos);
  ExperimentSpec no_seeds = gamma_spec({0.5});
  no_seeds.seeds.clear();
  EXPECT_NE(message_of(no_seeds).find("--seeds"), std::string::npos);
  ExperimentSpec base = gamma_spec({0.5});
  base.base["lr_typo"] = 1;
  EXPECT_NE(message_of(base).find("'lr_typo'"), std::string::npos);
  ExperimentSpec slip = gamma_spec({0.5});
  slip.base["epoch"] = 2;
  EXPECT_NE(message_of(slip).find("base configuration: config key 'epoch' is unknown (did you "
                                  "mean 'epochs'?)"),
            std::string::npos)
      << message_of(slip);
  ExperimentSpec val = gamma_spec({0.5});
  val.selection = kSelectVal;
  EXPECT_NE(message_of(val).find("--select val needs a validation split"), std::string::npos);
}

TEST(ExperimentSpec, MoreThanTwoHundredRunsNeedConfirmation) {
  ExperimentSpec s;
  s.controls = false;
  std::vector<nlohmann::json> lrs;
  for (int i = 1; i <= 67; ++i) lrs.emplace_back(i * 1e-5);
  s.axes = {{"lr", lrs}};  // 67 × 3 seeds = 201 runs
  EXPECT_NE(message_of(s).find("201 runs"), std::string::npos) << message_of(s);
  EXPECT_EQ(message_of(s, /*confirmed=*/true), "");
  s.axes[0].values.pop_back();  // 198
  EXPECT_EQ(message_of(s), "");
}

TEST(ExperimentSpec, SelectionAutoIsLastWithoutAValidationSplit) {
  EXPECT_EQ(expand_experiment(gamma_spec({0.5}), false).selection, kSelectLast);
  auto spec = gamma_spec({0.5});
  spec.selection = kSelectTest;
  EXPECT_EQ(expand_experiment(spec, false).selection, kSelectTest);
}

TEST(ExperimentSpec, JsonRoundTripAndUnknownKeys) {
  auto spec = gamma_spec({0.0, 0.5});
  spec.control_scales = {20};
  spec.parallel = 2;
  nlohmann::json j = spec;
  ExperimentSpec back;
  from_json(j, back);
  EXPECT_EQ(nlohmann::json(back), j);
  j["sedes"] = {1};
  EXPECT_THROW(from_json(j, back), ConfigError);
}

TEST(ExperimentSpec, ReuseComparesEverythingButNameAndThreads) {
  TrainConfig a, b;
  a.name = "x";
  b.name = "y";
  a.threads = 1;
  b.threads = 2;
  EXPECT_EQ(comparable_config(a), comparable_config(b));
  b.lr *= 2;
  EXPECT_NE(comparable_config(a), comparable_config(b));
}

TEST(ExperimentPresets, EveryPresetExpandsWithThreeSeedsAndControls) {
  for (const auto& name : experiment_preset_names()) {
    const auto plan = expand_experiment(experiment_preset(name), false);
    EXPECT_EQ(plan.slots.size(), plan.cells.size() * 3) << name;
    int controls = 0;
    for (const auto& c : plan.cells) controls += is_control_role(c.role);
    EXPECT_GT(controls, 0) << name;
    EXPECT_EQ(plan.cells[0].config.lr, 1e-3) << name;
  }
  // γ {0, .25, .5} × s {10, 20, 100}: 9 cells, plus the learnt scale and s 50.
  EXPECT_EQ(expand_experiment(experiment_preset("gamma-scale"), false).cells.size(), 11u);
  EXPECT_THROW(experiment_preset("gamma"), ConfigError);
}

}  // namespace
}  // namespace hnclip
