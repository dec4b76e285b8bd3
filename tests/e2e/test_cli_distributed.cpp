// End-to-end tests of data-parallel `hnclip train` (issue 19) on the built-in benchmark (size
// small), Gloo, ranks as separate processes on localhost:
// - two ranks train the one-process run (launched by hand, and by an unchanged torchrun): every step's loss, plain InfoNCE loss and gradient norm
//   to 1e-5 (relative), the probes, and the evaluations equal — recomputed Ḡ with even shards,
//   frozen Ḡ with family batches and uneven shards (a global batch of 31); evaluation sharded
//   over the ranks, and rank 0's own (--dist-eval rank0);
// - rank 0's progress lines show each rank's pace;
// - only rank 0 writes: the record (world size 2, backend gloo) and the checkpoints; a rank's own
//   --db is never created;
// - a rank that dies mid-run leaves the run `interrupted` within the timeout; it refuses to resume
//   with another world size, and resumed with two ranks it ends where the one-process run ends;
// - bad flags, a refused run and an unreachable master end every rank with one clear line,
//   recording nothing.

#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "distributed/loopback_port.h"
#include "store/run_store.h"
#include "support/cli_runner.h"
#include "support/test_dirs.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using hnclip::test::expect_one_line_error;

constexpr double kTolerance = 1e-5;  // relative to max(1, |value|)
// A probe's plain-InfoNCE gradient norm is a backward of its own, taken after the ranks' summed
// gradients have moved the weights apart in the last float bits for up to 31 steps. Where the
// gradient spikes it is the most sensitive number compared: step 18's (|g| 1.78, three to eight
// times the others) differed by 1.67e-5 of itself on a Sapphire Rapids VM (AVX-512 FP16), whose
// kernels sum in another order than the VM this was first checked on, while every step metric
// stayed within 1e-5. A wrong shard or a missing term moves these norms by 1e-3 and more.
constexpr double kProbeTolerance = 5e-5;

bool close(double a, double b, double tolerance = kTolerance) {
  return std::abs(a - b) <= tolerance * std::max(1.0, std::abs(a));
}

struct Ranks {
  int code0 = -1, code1 = -1;
  std::string err0, err1;
  double seconds = 0;
};

class CliDistributed : public ::testing::Test {
 protected:
  hnclip::test::ScratchDir dir;

  // `hnclip train` on the small built-in benchmark, 2 epochs of 16 steps, then `extra`.
  std::string train(const std::string& extra) const {
    return "train --benchmark-size small --epochs 2 --batch 32 --lr 1e-3 --threads 1 "
           "--probe-every 2 --cache-dir " +
           (dir / "cache").string() + " " + extra;
  }
  static std::string hnclip_command(const std::string& args) {
    return std::string(HNCLIP_CLI_PATH) + " " + args;
  }

  // One process, no torchrun variables in its environment.
  void one_process(const std::string& args, const std::string& db) const {
    std::string err;
    const int code = hnclip::test::run_command(
        "env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT " +
            hnclip_command(train(args + " --db " + db)),
        nullptr, &err);
    ASSERT_EQ(code, 0) << err;
  }

  // Two ranks at once, `hnclip <args>` plus where they meet: rank 0 with `args0`, rank 1 with
  // `args1`, rank 1's environment prefixed with `env1`.
  Ranks two_ranks(const std::string& args, const std::string& args0, const std::string& args1,
                  const std::string& env1 = "") const {
    const std::string master = "127.0.0.1:" + std::to_string(hnclip::free_loopback_port());
    const auto dist = " --world-size 2 --master " + master + " --dist-timeout 60";
    const auto e0 = dir / "rank0.err", e1 = dir / "rank1.err", c0 = dir / "rank0.code",
               c1 = dir / "rank1.code";
    const std::string script =
        "( " + hnclip_command(args + dist + " --rank 0 " + args0) + " >/dev/null 2>" +
        e0.string() + "; echo $? >" + c0.string() + " ) & ( env " + env1 + " " +
        hnclip_command(args + dist + " --rank 1 " + args1) + " >/dev/null 2>" + e1.string() +
        "; echo $? >" + c1.string() + " ); wait";
    const auto t0 = std::chrono::steady_clock::now();
    hnclip::test::run_command("bash -c '" + script + "'", nullptr, nullptr);
    Ranks r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.code0 = std::stoi(hnclip::test::read_text_file(c0));
    r.code1 = std::stoi(hnclip::test::read_text_file(c1));
    r.err0 = hnclip::test::read_text_file(e0);
    r.err1 = hnclip::test::read_text_file(e1);
    return r;
  }

  // Step metrics, probes and evaluations of run 1 in `a` and `b` agree.
  static void expect_same_run(const std::string& a, const std::string& b, int64_t from_step = 0) {
    hnclip::RunStore sa(a), sb(b);
    const auto ma = sa.step_metrics(1), mb = sb.step_metrics(1);
    ASSERT_EQ(ma.size(), mb.size());
    ASSERT_FALSE(ma.empty());
    for (size_t i = 0; i < ma.size(); ++i) {
      ASSERT_EQ(ma[i].step, mb[i].step);
      if (ma[i].step <= from_step) continue;
      EXPECT_TRUE(close(ma[i].loss, mb[i].loss)) << "step " << ma[i].step << ": " << ma[i].loss << " vs " << mb[i].loss;
      EXPECT_TRUE(close(ma[i].loss_standard, mb[i].loss_standard))
          << "step " << ma[i].step << ": " << ma[i].loss_standard << " vs " << mb[i].loss_standard;
      EXPECT_TRUE(close(ma[i].grad_norm, mb[i].grad_norm))
          << "step " << ma[i].step << ": " << ma[i].grad_norm << " vs " << mb[i].grad_norm;
      EXPECT_TRUE(close(ma[i].logit_scale, mb[i].logit_scale)) << "step " << ma[i].step;
    }
    const auto pa = sa.probes(1), pb = sb.probes(1);
    ASSERT_EQ(pa.size(), pb.size());
    for (size_t i = 0; i < pa.size(); ++i) {
      EXPECT_TRUE(close(pa[i].grad_norm_standard, pb[i].grad_norm_standard, kProbeTolerance))
          << "probe " << pa[i].step << ": " << pa[i].grad_norm_standard << " vs "
          << pb[i].grad_norm_standard;
      EXPECT_TRUE(close(pa[i].grad_norm_boosted, pb[i].grad_norm_boosted, kProbeTolerance))
          << "probe " << pa[i].step << ": " << pa[i].grad_norm_boosted << " vs "
          << pb[i].grad_norm_boosted;
    }
    const auto ea = sa.epoch_evals(1), eb = sb.epoch_evals(1);
    ASSERT_EQ(ea.size(), eb.size());
    for (size_t i = 0; i < ea.size(); ++i) {
      EXPECT_EQ(ea[i].epoch, eb[i].epoch);
      EXPECT_NEAR(ea[i].recall, eb[i].recall, 1e-9) << ea[i].direction << " R@" << ea[i].k;
    }
  }
};

TEST_F(CliDistributed, TwoRanksTrainTheOneProcessRun) {
  const auto one = (dir / "one.db").string(), two = (dir / "two.db").string();
  one_process("--gamma 0.5", one);
  const auto r =
      two_ranks(train("--gamma 0.5"), "--db " + two, "--db " + (dir / "rank1.db").string());
  ASSERT_EQ(r.code0, 0) << r.err0;
  ASSERT_EQ(r.code1, 0) << r.err1;
  expect_same_run(one, two);

  hnclip::RunStore store(two);
  const auto run = store.find_run(1);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, hnclip::RunStatus::Finished);
  const auto config = json::parse(run->config_json);
  EXPECT_EQ(config["world_size"], 2);
  EXPECT_EQ(config["dist_backend"], "gloo");
  EXPECT_EQ(store.checkpoints(1).size(), 2U);
  EXPECT_EQ(store.list_runs().size(), 1U);
  // Rank 1 writes nothing: not even its own database exists.
  EXPECT_FALSE(fs::exists(dir / "rank1.db"));
  EXPECT_NE(r.err1.find("rank 1: finished, 32 steps"), std::string::npos) << r.err1;
  // Rank 0's progress lines show every rank's pace live (agree_on_step).
  EXPECT_NE(r.err0.find("rank 0 "), std::string::npos) << r.err0;
  EXPECT_NE(r.err0.find("rank 1 "), std::string::npos) << r.err0;
  EXPECT_NE(r.err0.find("% in collectives"), std::string::npos) << r.err0;
  EXPECT_EQ(config["dist_eval"], "sharded");
}

// An unchanged torchrun launch (Debian's python3-torch, --no_python): its agent serves the
// rendezvous store and sets the env:// variables; the ranks join as its clients. (--redirects 2
// --tee 2: Debian's torchrun 1.13 under Python 3.11 cannot parse its own default "0" — IntFlag
// no longer iterates the zero member — so stderr is copied to its log and the console instead.)
TEST_F(CliDistributed, TorchrunLaunchesTheRanksUnchanged) {
  const auto one = (dir / "one.db").string(), two = (dir / "two.db").string();
  one_process("--gamma 0.5 --gbar frozen", one);
  std::string out, err;
  const int code = hnclip::test::run_command(
      std::string(HNCLIP_REFERENCE_PYTHON) +
          " -m torch.distributed.run --nnodes 1 --nproc_per_node 2 --master_addr 127.0.0.1 "
          "--master_port " +
          std::to_string(hnclip::free_loopback_port()) + " --redirects 2 --tee 2 --no_python " +
          hnclip_command(train("--gamma 0.5 --gbar frozen --dist-timeout 60 --db " + two)),
      &out, &err);
  ASSERT_EQ(code, 0) << err;
  expect_same_run(one, two);
  hnclip::RunStore store(two);
  EXPECT_EQ(json::parse(store.find_run(1)->config_json)["world_size"], 2);
}

// Also rank 0's own evaluation (--dist-eval rank0), where the other tests shard it.
TEST_F(CliDistributed, FrozenGbarFamilyBatchesAndUnevenShardsMatchOneProcess) {
  const auto one = (dir / "one.db").string(), two = (dir / "two.db").string();
  const std::string args = "--gamma 0.5 --gbar frozen --batch-sampler families --batch 31";
  one_process(args, one);
  const auto r = two_ranks(train(args + " --dist-eval rank0"), "--db " + two, "--db " + two);
  ASSERT_EQ(r.code0, 0) << r.err0;
  ASSERT_EQ(r.code1, 0) << r.err1;
  expect_same_run(one, two);
  hnclip::RunStore store(two);
  EXPECT_EQ(json::parse(store.find_run(1)->config_json)["dist_eval"], "rank0");
}

TEST_F(CliDistributed, DeadRankInterruptsTheRunWhichResumesWithTheSameWorldSizeOnly) {
  const auto one = (dir / "one.db").string(), two = (dir / "two.db").string();
  one_process("--gamma 0.5", one);
  // Rank 1 kills itself at step 20 of 32 (in epoch 2; epoch 1's checkpoint exists).
  auto r = two_ranks(train("--gamma 0.5"), "--db " + two, "--db " + two,
                     "HNCLIP_FAULT_POINT=train.step:20");
  EXPECT_NE(r.code1, 0);
  EXPECT_EQ(r.code0, 1) << r.err0;
  EXPECT_LT(r.seconds, 60) << "rank 0 must stop well within its 60 s timeout once rank 1 is gone";
  EXPECT_NE(r.err0.find("rank 0 of 2"), std::string::npos) << r.err0;
  {
    hnclip::RunStore store(two);
    const auto run = store.find_run(1);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, hnclip::RunStatus::Interrupted) << run->status_message;
  }
  // Another world size is refused, naming both, and changes nothing.
  const auto alone = hnclip::test::run_hnclip("train --resume 1 --db " + two + " --cache-dir " +
                                              (dir / "cache").string());
  expect_one_line_error(alone, 2, "trained by 2 process(es) (--world-size 2)");
  // The same world size resumes from epoch 1's checkpoint and ends where one process ends.
  r = two_ranks("train --resume 1 --db " + two + " --cache-dir " + (dir / "cache").string(), "",
                "");
  ASSERT_EQ(r.code0, 0) << r.err0;
  ASSERT_EQ(r.code1, 0) << r.err1;
  expect_same_run(one, two);
  hnclip::RunStore store(two);
  EXPECT_EQ(store.find_run(1)->status, hnclip::RunStatus::Finished);
}

TEST_F(CliDistributed, BadFlagsAndAnUnreachableMasterFailWithOneLineAndRecordNothing) {
  const auto db = (dir / "runs.db").string();
  const auto common = " --db " + db + " --cache-dir " + (dir / "cache").string();
  const std::string small = "train --benchmark-size small --epochs 1 --batch 32 --threads 1";
  expect_one_line_error(hnclip::test::run_hnclip(small + " --world-size 2 --rank 0" + common), 2,
                        "--master ADDR:PORT, or environment variables MASTER_ADDR and MASTER_PORT");
  expect_one_line_error(
      hnclip::test::run_hnclip(small + " --world-size 2 --rank 2 --master 127.0.0.1:1" + common),
      2, "--rank must be in [0, 2)");
  expect_one_line_error(hnclip::test::run_hnclip(small + " --peft lora --rank 4" + common), 2,
                        "the adapter rank of --peft is --peft-rank");
  expect_one_line_error(
      hnclip::test::run_hnclip(small + " --world-size 2 --rank 1 --master 127.0.0.1:29x" + common),
      2, "--master's port must be an integer");
  expect_one_line_error(hnclip::test::run_hnclip(small + " --world-size 2 --rank 0 --master " +
                                                 "127.0.0.1:1 --token-weight 0.1" + common),
                        2, "--token-weight is not supported with --world-size > 1");
  // Nobody serves this port: rank 1 gives up after its timeout, naming the address.
  const std::string master = "127.0.0.1:" + std::to_string(hnclip::free_loopback_port());
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = hnclip::test::run_hnclip(small + " --world-size 2 --rank 1 --master " + master +
                                          " --dist-timeout 3" + common);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expect_one_line_error(r, 1, "cannot reach the master at " + master);
  EXPECT_LT(seconds, 30);
  EXPECT_FALSE(fs::exists(db));
}

TEST_F(CliDistributed, ARunRank0RefusesEndsRank1AtOnceWithRank0sReason) {
  const auto db = (dir / "runs.db").string();
  const auto r = two_ranks(train("--batch 100000"), "--db " + db, "--db " + db);
  EXPECT_EQ(r.code0, 2) << r.err0;
  EXPECT_EQ(r.code1, 2) << r.err1;
  EXPECT_NE(r.err1.find("rank 0 refused the run: --batch 100000 is larger than the training split"),
            std::string::npos)
      << r.err1;
  EXPECT_LT(r.seconds, 50) << "rank 1 must not wait out its 60 s timeout";
  if (fs::exists(db)) {
    hnclip::RunStore store(db);
    EXPECT_TRUE(store.list_runs().empty());
  }
}

// A rank above 0 trains rank 0's run. A run flag given to it alone was dropped without a word
// (rank 1's --seed 2 trained seed 1's data order); rank 0 now refuses such a run before it
// records anything, naming the rank and each key with both values, and both end at once.
TEST_F(CliDistributed, RanksGivenDifferentRunFlagsAreRefusedBeforeAnythingIsRecorded) {
  const auto db = (dir / "runs.db").string();
  const auto r = two_ranks(train("--db " + db), "--gamma 0.5", "--seed 2");
  EXPECT_EQ(r.code0, 2) << r.err0;
  EXPECT_EQ(r.code1, 2) << r.err1;
  for (const auto* err : {&r.err0, &r.err1}) {
    EXPECT_NE(err->find("rank 1 was given another run configuration than rank 0: "),
              std::string::npos)
        << *err;
    EXPECT_NE(err->find("loss_gamma 0.0 (rank 0: 0.5)"), std::string::npos) << *err;
    EXPECT_NE(err->find("seed 2 (rank 0: 0)"), std::string::npos) << *err;
  }
  EXPECT_NE(r.err1.find("rank 0 refused the run: "), std::string::npos) << r.err1;
  EXPECT_LT(r.seconds, 50) << "neither rank may wait out its 60 s timeout";
  if (fs::exists(db)) {
    hnclip::RunStore store(db);
    EXPECT_TRUE(store.list_runs().empty());
  }
}

}  // namespace
