// Tests core/train/train_config: the validation split key (--val-split) is stored with the run,
// read back (absent in an older run's config: none) and refused where it would be the test or
// training split itself.

#include "train/train_config.h"

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

namespace hnclip {
namespace {

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

}  // namespace
}  // namespace hnclip
