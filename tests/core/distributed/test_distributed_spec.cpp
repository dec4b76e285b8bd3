// Tests core/distributed/distributed_spec: one process without flags or variables; the env://
// variables torchrun sets (and its agent's store); a flag winning over its variable; and one clear error naming the flag
// or variable for every bad value.

#include "distributed/distributed_spec.h"

#include <map>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace hnclip {
namespace {

struct Env {
  std::map<std::string, std::string> vars;
  std::function<const char*(const char*)> fn() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

void expect_error(const DistributedFlags& f, const Env& env, const std::string& needle) {
  try {
    resolve_distributed_spec(f, env.fn());
    ADD_FAILURE() << "expected an error naming " << needle;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(DistributedSpec, NothingGivenIsOneProcess) {
  const auto s = resolve_distributed_spec({}, Env{}.fn());
  EXPECT_EQ(s.world_size, 1);
  EXPECT_EQ(s.rank, 0);
  EXPECT_FALSE(s.distributed());
}

TEST(DistributedSpec, TorchrunVariables) {
  Env env{{{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "10.0.0.2"},
           {"MASTER_PORT", "29500"}}};
  const auto s = resolve_distributed_spec({}, env.fn());
  EXPECT_EQ(s.world_size, 4);
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.local_rank, 1);
  EXPECT_EQ(s.master(), "10.0.0.2:29500");
  EXPECT_TRUE(s.distributed());
}

TEST(DistributedSpec, UnderTorchrunEveryRankIsAClientOfItsAgentsStore) {
  Env env{{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "29500"},
           {"TORCHELASTIC_USE_AGENT_STORE", "True"}, {"TORCHELASTIC_RESTART_COUNT", "2"}}};
  EXPECT_EQ(resolve_distributed_spec({}, env.fn()).agent_store_prefix, "/worker/attempt_2");
  env.vars["TORCHELASTIC_USE_AGENT_STORE"] = "False";
  EXPECT_EQ(resolve_distributed_spec({}, env.fn()).agent_store_prefix, "");
}

TEST(DistributedSpec, FlagsWinOverVariablesAndLocalRankDefaultsToRank) {
  Env env{{{"RANK", "0"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}}};
  DistributedFlags f;
  f.world_size = 2;
  f.rank = 1;
  f.master = "127.0.0.1:4000";
  f.backend = "gloo";
  f.timeout_s = 2.5;
  const auto s = resolve_distributed_spec(f, env.fn());
  EXPECT_EQ(s.world_size, 2);
  EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(s.local_rank, 1);
  EXPECT_EQ(s.master(), "127.0.0.1:4000");
  EXPECT_EQ(s.backend, DistributedBackend::kGloo);
  EXPECT_EQ(s.timeout.count(), 2500);
}

TEST(DistributedSpec, BadValuesNameTheirFlagOrVariable) {
  expect_error({}, Env{{{"WORLD_SIZE", "two"}}}, "WORLD_SIZE");
  expect_error({}, Env{{{"WORLD_SIZE", "2x"}}}, "WORLD_SIZE");
  expect_error({}, Env{{{"WORLD_SIZE", "0"}}}, "WORLD_SIZE");
  expect_error({}, Env{{{"WORLD_SIZE", "2"}}}, "RANK");  // a world without a rank
  expect_error({}, Env{{{"WORLD_SIZE", "2"}, {"RANK", "2"}}}, "RANK");
  expect_error({}, Env{{{"WORLD_SIZE", "2"}, {"RANK", "1"}, {"LOCAL_RANK", "-1"}}}, "LOCAL_RANK");
  expect_error({}, Env{{{"WORLD_SIZE", "2"}, {"RANK", "1"}}}, "MASTER_ADDR");
  expect_error({}, Env{{{"WORLD_SIZE", "2"}, {"RANK", "1"}, {"MASTER_ADDR", "h"},
                        {"MASTER_PORT", "70000"}}},
               "MASTER_PORT");
  DistributedFlags f;
  f.world_size = 2;
  f.rank = 5;
  expect_error(f, Env{}, "--rank");
  f.rank = 0;
  f.master = "no-port";
  expect_error(f, Env{}, "--master");
  f.master = "h:0";
  expect_error(f, Env{}, "--master");
  f.master = "h:1";
  f.backend = "mpi";
  expect_error(f, Env{}, "--dist-backend");
  f.backend = "gloo";
  f.timeout_s = 0;
  expect_error(f, Env{}, "--dist-timeout");
  DistributedFlags g;
  g.world_size = 0;
  expect_error(g, Env{}, "--world-size");
}

}  // namespace
}  // namespace hnclip
