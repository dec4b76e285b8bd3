// job/settings_without_effect: which settings a configuration leaves unread, for an experiment's
// keys (config_key_without_effect_in_every) and a typed configuration (typed_key_without_effect,
// the workbench's --config). A key one configuration reads is kept; one given at its default
// value stores nothing and is accepted.

#include "job/settings_without_effect.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/builtin_recipe.h"
#include "train/train_config.h"

namespace hnclip {
namespace {

TEST(SettingsWithoutEffect, AKeyIsRefusedOnlyWhenNoConfigurationReadsIt) {
  TrainConfig plain;
  plain.init = kRandomInit;
  TrainConfig finelip = plain;
  finelip.framework = Framework::kFinelip;
  EXPECT_EQ(config_key_without_effect_in_every({"epochs", "finelip_margin"}, {plain}),
            "config key 'finelip_margin' (--finelip-margin) has no effect without --framework "
            "finelip");
  EXPECT_EQ(config_key_without_effect_in_every({"finelip_margin"}, {plain, finelip}), "");
  EXPECT_EQ(config_key_without_effect_in_every({"peft_towers"}, {plain}),
            "config key 'peft_towers' (--peft-towers) has no effect without --peft lora or dora");
  // Ḡ's mode with margins in one cell of two.
  TrainConfig margins = plain;
  margins.loss_gamma = 0.5;
  EXPECT_NE(config_key_without_effect_in_every({"loss_gbar"}, {plain}), "");
  EXPECT_EQ(config_key_without_effect_in_every({"loss_gbar"}, {plain, margins}), "");
  // The context length sizes a run from scratch only; the committed checkpoint brings its own.
  TrainConfig pretrained = plain;
  pretrained.init = kPretrainedInit;
  EXPECT_EQ(config_key_without_effect_in_every({"context_length"}, {plain}), "");
  EXPECT_NE(config_key_without_effect_in_every({"context_length"}, {pretrained}), "");
  EXPECT_EQ(config_key_without_effect_in_every({}, {}), "");
}

TEST(SettingsWithoutEffect, ATypedKeyAtItsDefaultIsAcceptedAndAnUnreadOneIsNamed) {
  const auto typed = [](const std::string& text) {
    const auto j = nlohmann::json::parse(text);
    return typed_key_without_effect(j, typed_train_config(text, builtin_finetune_recipe()));
  };
  EXPECT_EQ(typed(R"({"finelip_margin": 0.2, "peft_rank": 8})"), "");  // the defaults
  EXPECT_EQ(typed(R"({"framework": "finelip", "finelip_margin": 0.3})"), "");
  EXPECT_EQ(typed(R"({"peft": "lora", "peft_rank": 4})"), "");
  EXPECT_EQ(typed(R"({"peft_rank": 4})"),
            "config key 'peft_rank' (--peft-rank) has no effect without --peft lora or dora");
  EXPECT_EQ(typed(R"({"structxlip_chunk_words": 2, "epochs": 3})"),
            "config key 'structxlip_chunk_words' (--structxlip-chunk-words) has no effect "
            "without --framework structxlip");
  EXPECT_EQ(typed_key_without_effect(nlohmann::json::array(), TrainConfig{}), "");
}

}  // namespace
}  // namespace hnclip
