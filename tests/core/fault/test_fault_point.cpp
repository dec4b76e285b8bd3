#include "fault/fault_point.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <stdexcept>

namespace hnclip {
namespace {

TEST(FaultPlan, UnsetOrEmptyIsNotArmed) {
  FaultPlan none(nullptr);
  EXPECT_FALSE(none.armed());
  EXPECT_FALSE(none.reached("checkpoint.write"));
  FaultPlan empty("");
  EXPECT_FALSE(empty.armed());
}

TEST(FaultPlan, FiresOnlyOnTheNthHitOfItsOwnName) {
  FaultPlan plan("checkpoint.write:3");
  ASSERT_TRUE(plan.armed());
  EXPECT_FALSE(plan.reached("checkpoint.write"));
  EXPECT_FALSE(plan.reached("train.step"));  // another point does not count
  EXPECT_FALSE(plan.reached("checkpoint.writer"));
  EXPECT_FALSE(plan.reached("checkpoint.write"));
  EXPECT_TRUE(plan.reached("checkpoint.write"));
  EXPECT_FALSE(plan.reached("checkpoint.write"));  // once only
}

TEST(FaultPlan, MalformedSpecsNameTheVariable) {
  for (const char* bad : {"checkpoint.write", ":2", "eval:", "eval:0", "eval:-1", "eval:2x",
                          "eval:99999999999"}) {
    try {
      FaultPlan plan(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("HNCLIP_FAULT_POINT=" + std::string(bad)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(FaultPointDeathTest, KillsItsOwnProcessWithSigkillOnTheNthHit) {
  // The child reads the variable when it first reaches a point (this test binary never calls
  // fault_point outside a death test, so the child's cached plan is read after setenv).
  EXPECT_EXIT(
      {
        setenv("HNCLIP_FAULT_POINT", "eval:2", 1);
        fault_point("eval");
        fault_point("train.step");
        fault_point("eval");
        std::exit(0);  // not reached
      },
      ::testing::KilledBySignal(SIGKILL), "");
}

TEST(FaultPointDeathTest, DoesNothingBeforeTheNthHit) {
  EXPECT_EXIT(
      {
        setenv("HNCLIP_FAULT_POINT", "eval:3", 1);
        fault_point("eval");
        fault_point("eval");
        std::exit(7);
      },
      ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace hnclip
