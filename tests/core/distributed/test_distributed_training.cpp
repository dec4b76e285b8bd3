// Tests core/distributed's training pieces end to end on Gloo, two processes on localhost: the
// losses, the step-1 gradients (to 1e-5 of each one's scale) and the weights after 3 AdamW steps
// of a 2-rank run (features gathered with gradient, S and Ḡ over the global batch, gradients
// summed while the backward runs) equal one process on the same global batch to 1e-5 — with recomputed and frozen Ḡ, and with uneven shards. The
// ranks take their place from the env:// variables torchrun sets. And a rank that cannot reach
// the master fails within its timeout, naming the address.
// The ranks are tests/core/distributed/distributed_step_worker.cpp, run as separate processes.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "distributed/loopback_port.h"
#include "support/test_dirs.h"

namespace {

constexpr double kTolerance = 1e-5;


struct Saved {
  torch::Tensor loss, buckets, overlapped;
  std::map<std::string, torch::Tensor> grad, weight;
};

Saved load(const std::filesystem::path& p) {
  torch::serialize::InputArchive in;
  in.load_from(p.string());
  Saved s;
  in.read("loss", s.loss);
  in.read("buckets", s.buckets);
  in.read("overlapped", s.overlapped);
  for (const auto& key : in.keys()) {
    torch::Tensor t;
    if (key.rfind("grad/", 0) == 0) {
      in.read(key, t);
      s.grad[key.substr(5)] = t;
    } else if (key.rfind("weight/", 0) == 0) {
      in.read(key, t);
      s.weight[key.substr(7)] = t;
    }
  }
  return s;
}

class DistributedTraining : public ::testing::Test {
 public:
  hnclip::test::ScratchDir dir;

  std::string worker(const std::string& args, const std::string& out) const {
    return std::string(HNCLIP_DIST_WORKER_PATH) + " --out " + (dir.path() / out).string() + " " + args;
  }

  // One process: no RANK / WORLD_SIZE in its environment.
  Saved reference(const std::string& args) {
    std::string err;
    const int code = hnclip::test::run_command(
        "env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT " + worker(args, "ref.pt"),
        nullptr, &err);
    EXPECT_EQ(code, 0) << err;
    return load(dir.path() / "ref.pt");
  }

  // Two ranks, launched as torchrun would: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT.
  std::pair<Saved, Saved> two_ranks(const std::string& args) {
    const int port = hnclip::free_loopback_port();
    std::string script;
    for (int r = 0; r < 2; ++r) {
      const auto d = dir.path().string();
      script += "(RANK=" + std::to_string(r) + " WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" +
                std::to_string(port) + " " + worker(args, "rank" + std::to_string(r) + ".pt") +
                " 2>" + d + "/err" + std::to_string(r) + "; echo $? >" + d + "/code" +
                std::to_string(r) + ") & ";
    }
    script += "wait";
    hnclip::test::run_command("sh -c '" + script + "'", nullptr, nullptr);
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(hnclip::test::read_text_file(dir.path() / ("code" + std::to_string(r))), "0\n")
          << "rank " << r << ": " << hnclip::test::read_text_file(dir.path() / ("err" + std::to_string(r)));
    }
    return {load(dir.path() / "rank0.pt"), load(dir.path() / "rank1.pt")};
  }
};

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

// An attention layer's key bias adds the same number to every score of a query, which softmax
// ignores: its true gradient is exactly zero, and what backward computes is rounding noise
// (measured below: under 1e-9). AdamW divides a gradient by its own running magnitude, so it
// turns that noise into steps of about ±lr whose signs follow the noise — any change of
// summation order (two ranks, or PyTorch's DDP) changes them. Those elements are compared as
// "noise in both", the rest of in_proj_bias to the tolerance.
constexpr double kZeroGradientNoise = 1e-7;
bool has_key_bias(const std::string& name) {
  return name.size() >= 17 && name.compare(name.size() - 17, 17, "attn.in_proj_bias") == 0;
}
torch::Tensor third(const torch::Tensor& t, int i) {
  const int64_t w = t.size(0) / 3;
  return t.slice(0, i * w, (i + 1) * w);
}
torch::Tensor without_key_bias(const std::string& name, const torch::Tensor& t) {
  return has_key_bias(name) ? torch::cat({third(t, 0), third(t, 2)}) : t;
}

struct Worst {
  double loss = 0, grad = 0, weight = 0;
};

// Everything the run saved equals the reference to 1e-5; `worst` gets the largest differences.
void expect_equal(const Saved& ref, const Saved& got, const std::string& who, Worst& worst) {
  worst.loss = max_abs_diff(ref.loss, got.loss);
  EXPECT_LE(worst.loss, kTolerance) << who << " losses " << ref.loss << " vs " << got.loss;
  EXPECT_EQ(ref.grad.size(), got.grad.size());
  EXPECT_EQ(ref.weight.size(), got.weight.size());
  for (const auto& [name, g] : ref.grad) {
    ASSERT_TRUE(got.grad.count(name)) << name;
    // A gradient to 1e-5 of its own scale (absolutely below 1), as the step benchmark checks
    // against PyTorch: fp32 sums of large gradients in another order differ in their last bits.
    const double scale = std::max(1.0, g.abs().max().item<double>());
    const double d = max_abs_diff(g, got.grad.at(name)) / scale;
    EXPECT_LE(d, kTolerance) << who << " step-1 gradient of " << name << " (relative to "
                             << scale << ")";
    worst.grad = std::max(worst.grad, d);
  }
  for (const auto& [name, w] : ref.weight) {
    ASSERT_TRUE(got.weight.count(name)) << name;
    const double d = max_abs_diff(without_key_bias(name, w), without_key_bias(name, got.weight.at(name)));
    EXPECT_LE(d, kTolerance) << who << " weight " << name << " after the steps";
    if (has_key_bias(name)) {
      EXPECT_LE(third(ref.grad.at(name), 1).abs().max().item<double>(), kZeroGradientNoise) << name;
      EXPECT_LE(third(got.grad.at(name), 1).abs().max().item<double>(), kZeroGradientNoise) << name;
    }
    worst.weight = std::max(worst.weight, d);
  }
}

void expect_two_ranks_equal_one_process(DistributedTraining& t, const std::string& args) {
  const Saved ref = t.reference(args);
  ASSERT_EQ(ref.loss.numel(), 3);
  // The reference trains: its loss moves, so "equal" below is not two runs that did nothing.
  EXPECT_GT(std::abs(ref.loss[0].item<double>() - ref.loss[2].item<double>()), 1e-4) << ref.loss;
  const auto [r0, r1] = t.two_ranks(args);
  Worst w0, w1;
  expect_equal(ref, r0, "rank 0", w0);
  expect_equal(ref, r1, "rank 1", w1);
  std::cout << "largest |difference| from one process (loss, step-1 gradient relative to its "
               "scale, weights after 3 steps): rank 0 "
            << w0.loss << ", " << w0.grad << ", " << w0.weight << "; rank 1 " << w1.loss << ", "
            << w1.grad << ", " << w1.weight << "\n";
  // The gradients were summed while the backward ran: with the worker's small buckets, every
  // step issued at least one bucket's all-reduce before the last gradient was computed.
  for (const auto* r : {&r0, &r1}) {
    const int64_t buckets = r->buckets.item<int64_t>(), overlapped = r->overlapped.item<int64_t>();
    EXPECT_GT(buckets, 2);
    EXPECT_GE(overlapped, 3) << "of " << buckets << " buckets per step, over 3 steps";
    std::cout << "buckets " << buckets << ", issued during the backward over 3 steps: "
              << overlapped << "\n";
  }
  // Both ranks hold the very same weights: they applied the same summed gradients.
  for (const auto& [name, w] : r0.weight) EXPECT_TRUE(torch::equal(w, r1.weight.at(name))) << name;
}

TEST_F(DistributedTraining, TwoRanksEqualOneProcessWithRecomputedGbar) {
  expect_two_ranks_equal_one_process(*this, "--steps 3 --batch 8 --gamma 0.5 --gbar recomputed");
}

TEST_F(DistributedTraining, TwoRanksEqualOneProcessWithFrozenGbar) {
  expect_two_ranks_equal_one_process(*this, "--steps 3 --batch 8 --gamma 0.5 --gbar frozen");
}

// 7 rows: rank 0 holds 3, rank 1 holds 4 (the last batch of an epoch need not divide).
TEST_F(DistributedTraining, UnevenShardsEqualOneProcess) {
  expect_two_ranks_equal_one_process(*this, "--steps 3 --batch 7 --gamma 0.5 --gbar recomputed");
}

// A parameter that rank 1's backward never reaches (no gradient hook fires there): it takes part
// in the sum as zeros — undefined .grad at step 1, zeroed .grad after — and every rank ends where
// one process does.
TEST_F(DistributedTraining, AParameterOnlyRank0ReachesIsSummedAsOneProcess) {
  expect_two_ranks_equal_one_process(
      *this, "--steps 3 --batch 8 --gamma 0.5 --gbar recomputed --rank0-term 0.5");
}

TEST_F(DistributedTraining, ARankThatCannotReachTheMasterNamesTheAddress) {
  const int port = hnclip::free_loopback_port();  // nobody serves it
  std::string err;
  const int code = hnclip::test::run_command(
      "env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) + " " +
          worker("--steps 1 --timeout-s 2", "never.pt"),
      nullptr, &err);
  EXPECT_EQ(code, 1);
  EXPECT_NE(err.find("cannot reach the master at 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "never.pt"));
}

}  // namespace
