// Where a run starts when nothing says: `train`'s default init per benchmark, and the same rule
// for an experiment's base given as JSON keys (hnclip sweep --config, the window's scripted spec).

#include "train/builtin_recipe.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hnclip {
namespace {

TEST(BuiltinRecipe, DefaultInitIsTheCommittedCheckpointOnTheBuiltInBenchmarkOnly) {
  TrainConfig c;
  EXPECT_EQ(default_init_for(c), kPretrainedInit);  // TrainConfig's benchmark is the built-in one
  c.benchmark = "manifest";
  EXPECT_EQ(default_init_for(c), "");
  EXPECT_EQ(builtin_finetune_recipe().init, kPretrainedInit);
}

TEST(BuiltinRecipe, JsonKeysWithoutAStartGetTrainsDefault) {
  nlohmann::json bare = {{"epochs", 1}};
  EXPECT_EQ(fill_default_init(bare), kPretrainedInit);
  EXPECT_EQ(bare["init"], kPretrainedInit);
  nlohmann::json elsewhere = {{"benchmark", "docci"}};
  EXPECT_EQ(fill_default_init(elsewhere), "");
  EXPECT_EQ(elsewhere["init"], "");  // random: the committed vocabulary does not fit
  nlohmann::json random = {{"init", kRandomInit}};
  EXPECT_EQ(fill_default_init(random), "");
  EXPECT_EQ(random["init"], "");  // stored as "", as `train --init random` stores it
  nlohmann::json named = {{"init", "/models/ViT-B-32.pt"}};
  EXPECT_EQ(fill_default_init(named), "");
  EXPECT_EQ(named["init"], "/models/ViT-B-32.pt");
  nlohmann::json sized = {{"model", "ViT-B/32"}};
  EXPECT_EQ(fill_default_init(sized), "");
  EXPECT_FALSE(sized.contains("init"));
  EXPECT_TRUE(names_a_start(sized));
  EXPECT_FALSE(names_a_start(nlohmann::json{{"epochs", 1}}));
}

}  // namespace
}  // namespace hnclip
