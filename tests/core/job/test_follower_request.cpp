// follower_disagreement: rank 0 refuses a data-parallel run when a rank above 0 was given other
// run flags than its own (they were dropped without a word before), names the rank and every
// differing key with both values, and lets a rank given no run flags follow whatever it runs.

#include "job/follower_request.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "job/new_run_config.h"

namespace hnclip {
namespace {

TrainConfig rank0_run() {
  TrainConfig c;
  c.loss_gamma = 0.5;
  c.seed = 3;
  c.world_size = 2;
  return settled_new_run_config(c);
}

FollowerRequest given(const TrainConfig& config) {
  FollowerRequest r;
  r.configured = true;
  r.config = settled_new_run_config(config);
  return r;
}

TEST(FollowerRequest, TheSameFlagsOrNoneAgree) {
  const TrainConfig run = rank0_run();
  EXPECT_EQ(follower_disagreement(1, FollowerRequest{}, &run, 0), "");
  TrainConfig same = run;
  same.dist_backend = "";  // rank 0 resolves its backend after the check: not compared
  EXPECT_EQ(follower_disagreement(1, given(same), &run, 0), "");
}

TEST(FollowerRequest, EveryDifferingKeyIsNamedWithBothValues) {
  const TrainConfig run = rank0_run();
  TrainConfig other = run;
  other.loss_gamma = 0.0;
  other.seed = 4;
  const std::string why = follower_disagreement(2, given(other), &run, 0);
  EXPECT_EQ(why.rfind("rank 2 was given another run configuration than rank 0: ", 0), 0u) << why;
  EXPECT_NE(why.find("loss_gamma 0.0 (rank 0: 0.5)"), std::string::npos) << why;
  EXPECT_NE(why.find("seed 4 (rank 0: 3)"), std::string::npos) << why;
  EXPECT_NE(why.find("give every rank the same flags"), std::string::npos) << why;
  EXPECT_EQ(why.find("epochs"), std::string::npos) << "only the keys that differ: " << why;
}

// The follower settles its flags as rank 0 does: a relative root is the same root, and a
// framework's own starting logit scale is not a difference.
TEST(FollowerRequest, FlagsAreComparedAsRank0RecordsThem) {
  TrainConfig typed;
  typed.benchmark = "manifest";
  typed.benchmark_root = "data/x.jsonl";
  typed.framework = Framework::kLongClip;
  const TrainConfig run = settled_new_run_config(typed);
  EXPECT_EQ(run.benchmark_root, (std::filesystem::current_path() / "data/x.jsonl").string());
  EXPECT_EQ(run.logit_scale, 100.0);
  EXPECT_EQ(follower_disagreement(1, given(typed), &run, 0), "");
}

TEST(FollowerRequest, AResumeIsTheSameRunOrNone) {
  const TrainConfig run = rank0_run();
  FollowerRequest resume;
  resume.resume = 7;
  EXPECT_NE(follower_disagreement(1, resume, &run, 0)
                .find("rank 1 was given --resume 7, but "
                      "rank 0 starts a new run"),
            std::string::npos);
  EXPECT_EQ(follower_disagreement(1, resume, nullptr, 7), "");
  EXPECT_EQ(follower_disagreement(1, FollowerRequest{}, nullptr, 7), "");
  EXPECT_NE(follower_disagreement(1, resume, nullptr, 6)
                .find("rank 1 was given --resume 7, "
                      "rank 0 --resume 6"),
            std::string::npos);
  FollowerRequest flags = given(run);
  flags.resume = 7;
  EXPECT_NE(follower_disagreement(1, flags, nullptr, 7).find("keeps its stored configuration"),
            std::string::npos);
}

TEST(FollowerRequest, TheRequestTravelsAsText) {
  FollowerRequest r = given(rank0_run());
  r.resume = 0;
  const FollowerRequest back = parse_follower_request(1, follower_request_text(r));
  EXPECT_TRUE(back.configured);
  EXPECT_EQ(back.config.loss_gamma, 0.5);
  EXPECT_EQ(back.config.seed, 3u);
  EXPECT_EQ(follower_request_key(3), "hnclip/follower/3");
  try {
    parse_follower_request(3, "{\"configured\": 1}");
    FAIL() << "a request without its keys was read";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 3 published a request"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hnclip
