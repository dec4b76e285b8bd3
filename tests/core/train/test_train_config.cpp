// Tests core/train/train_config: the validation split key (--val-split) is stored with the run,
// read back (absent in an older run's config: none) and refused where it would be the test or
// training split itself; the framework keys likewise, and the combinations they refuse; the Ḡ
// mode a run trained with (gbar_in_effect).

#include "train/train_config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace hnclip {
namespace {

// A γ = 0 run stored as "frozen" by an earlier version trained with no frozen text encoder: it is
// shown as the recomputed run it was, while margins keep the mode they were given.
TEST(TrainConfig, TheGbarInEffectIsRecomputedWithoutMargins) {
  TrainConfig c;
  c.loss_gbar = GbarMode::kFrozen;
  EXPECT_EQ(gbar_in_effect(c), GbarMode::kRecomputed);
  c.loss_gamma = 0.5;
  EXPECT_EQ(gbar_in_effect(c), GbarMode::kFrozen);
  c.loss_gbar = GbarMode::kRecomputed;
  EXPECT_EQ(gbar_in_effect(c), GbarMode::kRecomputed);
}

TEST(TrainConfig, ValSplitRoundTripsThroughJson) {
  TrainConfig c;
  c.val_split = "val";
  const nlohmann::json j = c;
  EXPECT_EQ(j.at("val_split"), "val");
  TrainConfig back;
  from_json(j, back);
  EXPECT_EQ(back.val_split, "val");
  EXPECT_EQ(parse_train_config(j.dump()).val_split, "val");
  EXPECT_EQ(nlohmann::json(back), j);
}

TEST(TrainConfig, ValSplitAbsentFromAnOlderRunIsNone) {
  nlohmann::json older = TrainConfig{};
  older.erase("val_split");
  older["test_split"] = "test";
  EXPECT_TRUE(parse_train_config(older.dump()).val_split.empty());
  EXPECT_NO_THROW(parse_train_config(older.dump()).validate());
  older["val_split"] = 3;
  EXPECT_THROW(parse_train_config(older.dump()), ConfigError);
}

// A typed config (--config, an experiment's base) refuses a key that is none, naming the key it
// likely meant; a stored one ignores it, so a run stored by another version stays readable.
TEST(TrainConfig, ATypedConfigRefusesUnknownKeysWhereAStoredOneIgnoresThem) {
  TrainConfig start;
  start.epochs = 4;
  const TrainConfig typed = typed_train_config(R"({"loss_gamma": 0.5})", start);
  EXPECT_EQ(typed.loss_gamma, 0.5);
  EXPECT_EQ(typed.epochs, 4);  // a key not given keeps the start's value
  auto refusal = [&](const std::string& text) {
    try {
      typed_train_config(text, start);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(R"({"epoch": 2})"), "config key 'epoch' is unknown (did you mean 'epochs'?)");
  EXPECT_EQ(refusal(R"({"gamma": 0.5})"),
            "config key 'gamma' is unknown (did you mean 'loss_gamma'?)");
  EXPECT_EQ(refusal(R"({"temperature": 0.07})"),
            "config key 'temperature' is unknown (it is no run configuration key)");
  EXPECT_EQ(refusal(R"({"epochs": "2"})").find("config key 'epochs'"), 0u);
  EXPECT_EQ(refusal("[2]"), "a run config must be a JSON object");
  EXPECT_EQ(refusal(R"({"epochs": 2)").rfind("not JSON", 0), 0u);

  nlohmann::json stored = TrainConfig{};
  stored["removed_in_a_later_version"] = 1;
  EXPECT_NO_THROW(parse_train_config(stored.dump()));
}

TEST(TrainConfig, ValSplitMustDifferFromTheTestAndTrainingSplits) {
  TrainConfig c;
  c.val_split = "val";
  EXPECT_NO_THROW(c.validate());
  for (const std::string& same : {c.test_split, c.train_split}) {
    c.val_split = same;
    try {
      c.validate();
      FAIL() << "expected ConfigError for --val-split " << same;
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("--val-split ", 0), 0u) << what;  // the form finds the flag first
      EXPECT_NE(what.find("'" + same + "'"), std::string::npos) << what;
    }
  }
  // Train and test may be one split (a manifest evaluated on what it trains on); val may not.
  c.train_split = c.test_split = "all";
  c.val_split = "";
  EXPECT_NO_THROW(c.validate());
  c.val_split = "all";
  EXPECT_THROW(c.validate(), ConfigError);
}

TEST(TrainConfig, FrameworkKeysRoundTripAndOlderRunsArePlainWithMargins) {
  TrainConfig c;
  c.framework = Framework::kLongClip;
  c.hn = false;
  c.longclip_pca_components = 16;
  c.longclip_label_smoothing = 0.2;
  const nlohmann::json j = c;
  EXPECT_EQ(j.at("framework"), "longclip");
  EXPECT_EQ(j.at("hn"), false);
  const auto back = parse_train_config(j.dump());
  EXPECT_EQ(back.framework, Framework::kLongClip);
  EXPECT_FALSE(back.hn);
  EXPECT_EQ(back.longclip_pca_components, 16);
  EXPECT_DOUBLE_EQ(back.longclip_label_smoothing, 0.2);
  nlohmann::json older = TrainConfig{};
  for (const char* key : {"framework", "hn", "longclip_pca_components", "longclip_label_smoothing"})
    older.erase(key);
  const auto plain = parse_train_config(older.dump());
  EXPECT_EQ(plain.framework, Framework::kPlain);
  EXPECT_TRUE(plain.hn);
  older["framework"] = "structclip";  // unknown: refused by name, never read as plain
  EXPECT_THROW(parse_train_config(older.dump()), ConfigError);
}

void expect_refused(const TrainConfig& c, const std::string& flag) {
  try {
    c.validate();
    FAIL() << "expected ConfigError naming " << flag;
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(flag, 0), 0u) << e.what();
  }
}

TEST(TrainConfig, FrameworkCombinationsThatCannotHoldAreRefusedByFlag) {
  TrainConfig c;
  c.framework = Framework::kLongClip;
  c.loss_gamma = 0.5;
  EXPECT_NO_THROW(c.validate());
  c.hn = false;  // its own global term has no margins: γ would be silently unused
  expect_refused(c, "--hn off");
  c.loss_gamma = 0;
  EXPECT_NO_THROW(c.validate());
  c.longclip_pca_components = 0;
  expect_refused(c, "--longclip-pca");
  c.longclip_pca_components = 32;
  c.longclip_label_smoothing = 1.0;
  expect_refused(c, "--longclip-smoothing");
  c.longclip_label_smoothing = 0.1;
  c.loss_token_weight = 0.5;
  expect_refused(c, "--token-weight");
  c.loss_token_weight = 0;
  c.world_size = 2;
  expect_refused(c, "--framework longclip");
}

TEST(TrainConfig, DebiasKeysRoundTripAndBadValuesAreRefusedByFlag) {
  TrainConfig c;
  c.framework = Framework::kDebias;
  c.debias_keep_ratio = 0.25;
  c.debias_pad_tokens = 7;
  const auto back = parse_train_config(nlohmann::json(c).dump());
  EXPECT_EQ(back.framework, Framework::kDebias);
  EXPECT_EQ(nlohmann::json(c).at("framework"), "debias");
  EXPECT_DOUBLE_EQ(back.debias_keep_ratio, 0.25);
  EXPECT_EQ(back.debias_pad_tokens, 7);
  EXPECT_EQ(TrainConfig{}.debias_pad_tokens, -1);  // default: pad to the full caption's end
  for (double bad : {0.0, 1.5, std::nan("")}) {
    c.debias_keep_ratio = bad;
    expect_refused(c, "--debias-keep");
  }
  c.debias_keep_ratio = 1.0;
  EXPECT_NO_THROW(c.validate());
  c.debias_pad_tokens = -2;
  expect_refused(c, "--debias-pad");
  c.debias_pad_tokens = -1;
  c.world_size = 2;
  expect_refused(c, "--framework debias");
}

TEST(TrainConfig, TrainTowersRoundTripsAndIsRefusedWithAdaptersOrAnUnknownTower) {
  TrainConfig c;
  EXPECT_EQ(c.train_towers, "both");
  c.train_towers = "text";
  EXPECT_EQ(parse_train_config(nlohmann::json(c).dump()).train_towers, "text");
  EXPECT_NO_THROW(c.validate());
  c.peft = PeftMethod::kLora;
  expect_refused(c, "--train-towers text");
  c.peft = PeftMethod::kNone;
  c.train_towers = "vision";
  expect_refused(c, "--train-towers must be");
}

// A refused number reads as typed: std::to_string printed `--gamma -1` as "-1.000000" and a
// --data-fraction of 1e-9, which is refused for another reason, as "0.000000".
TEST(TrainConfig, ARefusedNumberIsQuotedAsTyped) {
  TrainConfig c;
  c.loss_gamma = -1;
  expect_refused(c, "--gamma must be finite and >= 0 (got -1)");
  c = TrainConfig();
  c.data_fraction = 1.5;
  expect_refused(c, "--data-fraction must be in (0, 1] (got 1.5)");
  c.data_fraction = -1e-9;
  expect_refused(c, "--data-fraction must be in (0, 1] (got -1e-09)");
  c = TrainConfig();
  c.lr = std::nan("");  // a --config file's or the form's value, not only a typed flag
  expect_refused(c, "--lr must be finite and > 0 (got nan)");
  c = TrainConfig();
  c.warmup_fraction = 1;
  expect_refused(c, "--warmup must be in [0, 1) (got 1)");
  c = TrainConfig();
  c.grad_clip = -0.5;
  expect_refused(c, "--grad-clip must be finite and >= 0 (0 = off; got -0.5)");
  c = TrainConfig();
  c.threads = 0;
  expect_refused(c, "--threads must be >= 1 (got 0)");
  c = TrainConfig();
  c.hn = false;
  c.loss_gamma = 0.25;
  expect_refused(c,
                 "--hn off trains the framework's own global term, which has no margins: "
                 "--gamma 0.25 would be unused");
}

// A data-parallel run's evaluation: sharded unless the run says rank0; runs stored before the key
// existed were evaluated on rank 0 and read back as sharded, which gives the same recall.
TEST(TrainConfig, DistEvalRoundTripsDefaultsToShardedAndIsRefusedByFlag) {
  TrainConfig c;
  EXPECT_EQ(c.dist_eval, "sharded");
  c.dist_eval = "rank0";
  EXPECT_EQ(parse_train_config(nlohmann::json(c).dump()).dist_eval, "rank0");
  auto older = nlohmann::json(c);
  older.erase("dist_eval");
  EXPECT_EQ(parse_train_config(older.dump()).dist_eval, "sharded");
  c.dist_eval = "all";
  expect_refused(c, "--dist-eval must be sharded or rank0 (got 'all')");
}

TEST(TrainConfig, StructxlipKeysRoundTripAndBadValuesAreRefusedByFlag) {
  TrainConfig c;
  c.framework = Framework::kStructxlip;
  c.structxlip_words = "/data/words.txt";
  c.structxlip_structure_weight = 0.25;
  c.structxlip_consistency_weight = 0.5;
  c.structxlip_local_weight = 0;
  c.structxlip_chunk_words = 4;
  const auto back = parse_train_config(nlohmann::json(c).dump());
  EXPECT_EQ(back.framework, Framework::kStructxlip);
  EXPECT_EQ(to_string(back.framework), "structxlip");
  EXPECT_EQ(back.structxlip_words, "/data/words.txt");
  EXPECT_DOUBLE_EQ(back.structxlip_structure_weight, 0.25);
  EXPECT_DOUBLE_EQ(back.structxlip_consistency_weight, 0.5);
  EXPECT_DOUBLE_EQ(back.structxlip_local_weight, 0);
  EXPECT_EQ(back.structxlip_chunk_words, 4);
  // StructXLIP's published weights; the word list defaults to the shipped one.
  const TrainConfig d;
  EXPECT_DOUBLE_EQ(d.structxlip_structure_weight, 0.5);
  EXPECT_DOUBLE_EQ(d.structxlip_consistency_weight, 0.05);
  EXPECT_DOUBLE_EQ(d.structxlip_local_weight, 0.1);
  EXPECT_EQ(d.structxlip_words, "");
  for (double bad : {-0.1, std::nan("")}) {
    auto x = c;
    x.structxlip_structure_weight = bad;
    expect_refused(x, "--structxlip-structure-weight");
    x = c;
    x.structxlip_consistency_weight = bad;
    expect_refused(x, "--structxlip-consistency-weight");
    x = c;
    x.structxlip_local_weight = bad;
    expect_refused(x, "--structxlip-local-weight");
  }
  c.structxlip_chunk_words = 0;
  expect_refused(c, "--structxlip-chunk-words");
  c.structxlip_chunk_words = 3;
  c.world_size = 2;
  expect_refused(c, "--framework structxlip");
  c.world_size = 1;
  EXPECT_NO_THROW(c.validate());
}

TEST(TrainConfig, GoalKeysRoundTripAndBadValuesAreRefusedByFlag) {
  TrainConfig c;
  c.framework = Framework::kGoal;
  c.goal_segments = "/data/segments.json";
  c.goal_crop_weight = 0.25;
  const auto back = parse_train_config(nlohmann::json(c).dump());
  EXPECT_EQ(back.framework, Framework::kGoal);
  EXPECT_EQ(back.goal_segments, "/data/segments.json");
  EXPECT_DOUBLE_EQ(back.goal_crop_weight, 0.25);
  EXPECT_DOUBLE_EQ(TrainConfig{}.goal_crop_weight, 0.5);  // GOAL's code
  EXPECT_EQ(TrainConfig{}.goal_segments, "");             // the built-in benchmark's own
  c.goal_crop_weight = -1;
  expect_refused(c, "--goal-crop-weight");
  c.goal_crop_weight = std::nan("");
  expect_refused(c, "--goal-crop-weight");
  c.goal_crop_weight = 0.5;
  c.world_size = 2;
  expect_refused(c, "--framework goal");
  c.world_size = 1;
  EXPECT_NO_THROW(c.validate());
}

TEST(TrainConfig, FinelipKeysRoundTripAndBadValuesAreRefusedByFlag) {
  TrainConfig c;
  c.framework = Framework::kFinelip;
  c.finelip_margin = 0.3;
  c.finelip_hardest_negative = true;
  c.finelip_aggregation_lr = 5e-4;
  const auto back = parse_train_config(nlohmann::json(c).dump());
  EXPECT_EQ(back.framework, Framework::kFinelip);
  EXPECT_DOUBLE_EQ(back.finelip_margin, 0.3);
  EXPECT_TRUE(back.finelip_hardest_negative);
  EXPECT_DOUBLE_EQ(back.finelip_aggregation_lr, 5e-4);
  EXPECT_DOUBLE_EQ(TrainConfig{}.finelip_margin, 0.2);  // FineLIP's code
  c.finelip_margin = -0.1;
  expect_refused(c, "--finelip-margin");
  c.finelip_margin = 0.2;
  c.finelip_aggregation_lr = 0;
  expect_refused(c, "--finelip-lr");
  c.finelip_aggregation_lr = 1e-4;
  c.loss_gamma = 0.5;
  c.hn = false;  // FineLIP's own loss: no global term, so no margins to set
  expect_refused(c, "--hn off");
  c.loss_gamma = 0;
  EXPECT_NO_THROW(c.validate());
}

}  // namespace
}  // namespace hnclip
