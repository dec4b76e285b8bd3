// Tests core/train/fused_adamw: the fused step against torch::optim::AdamW's own step over two
// groups (each with its own lr and weight decay), a parameter whose gradient appears only later,
// and a switch between the two paths mid-run; the state it leaves is the optimiser's own (it
// round-trips through the optimiser's serialisation). Where the kernel is missing (LibTorch 1.13,
// or a 2.x older than 2.4 on the CPU) the step must refuse and change nothing — checked on every
// LibTorch; the agreement tests then skip with a message saying so (packaging/check-libtorch2.sh
// runs them on 2.6).

#include "train/fused_adamw.h"

#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <sstream>
#include <vector>

namespace hnclip {
namespace {

constexpr int kSteps = 6;

// Three parameters in two groups, as the Trainer's decayed / undecayed split.
struct Params {
  std::vector<torch::Tensor> p;
  explicit Params(uint64_t seed) {
    torch::manual_seed(seed);
    p = {torch::randn({7, 5}).requires_grad_(), torch::randn({11}).requires_grad_(),
         torch::randn({3, 4}).requires_grad_()};
  }
};

torch::optim::AdamW make_optimizer(const Params& ps, bool amsgrad = false) {
  auto base = torch::optim::AdamWOptions(1e-2).betas({0.9, 0.98}).eps(1e-6).amsgrad(amsgrad);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{ps.p[0], ps.p[1]},
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(base).weight_decay(0.1)));
  groups.emplace_back(std::vector<torch::Tensor>{ps.p[2]},
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(base).lr(3e-2).weight_decay(0.0)));
  return torch::optim::AdamW(std::move(groups), base);
}

// The same gradients on both sides: drawn from `step`; the last parameter gets none on step 1
// (its state starts a step later, so the steps counts differ within the run).
void set_gradients(Params& ps, int step) {
  torch::manual_seed(1000 + step);
  for (size_t i = 0; i < ps.p.size(); ++i) {
    ps.p[i].mutable_grad() =
        (step == 1 && i == 2) ? torch::Tensor() : torch::randn(ps.p[i].sizes());
  }
}

void expect_close(const Params& a, const Params& b, int step) {
  for (size_t i = 0; i < a.p.size(); ++i) {
    EXPECT_TRUE(torch::allclose(a.p[i], b.p[i], 1e-5, 1e-6))
        << "parameter " << i << " after step " << step << ": largest difference "
        << (a.p[i] - b.p[i]).abs().max().item<double>();
  }
}

// One step from the same gradients on both sides: the fused kernel on one, the loop on the other.
void step_both(Params& fused, torch::optim::AdamW& fused_opt, Params& loop,
               torch::optim::AdamW& loop_opt, int step) {
  set_gradients(fused, step);
  set_gradients(loop, step);
  EXPECT_TRUE(fused_adamw_step(fused_opt)) << "step " << step;
  loop_opt.step();
}

bool cpu_fused() { return fused_adamw_supported(torch::kCPU); }

TEST(FusedAdamW, SupportFollowsTheLibTorchVersion) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  EXPECT_TRUE(fused_adamw_supported(torch::kCPU));
#else
  EXPECT_FALSE(fused_adamw_supported(torch::kCPU));
#endif
#if TORCH_VERSION_MAJOR < 2
  EXPECT_FALSE(fused_adamw_supported(torch::Device(torch::kCUDA, 0)));
#endif
}

// Where the step cannot be fused — no kernel for the device, or AMSGrad — it refuses before it
// touches a weight or a moment, so the caller's optimizer.step() starts from the same state.
TEST(FusedAdamW, RefusesWithoutChangingAnything) {
  for (const bool amsgrad : {false, true}) {
    if (!amsgrad && cpu_fused()) continue;  // the kernel exists: nothing to refuse
    Params ps(3);
    auto opt = make_optimizer(ps, amsgrad);
    set_gradients(ps, 2);
    std::vector<torch::Tensor> before;
    for (const auto& p : ps.p) before.push_back(p.detach().clone());
    EXPECT_FALSE(fused_adamw_step(opt)) << "amsgrad " << amsgrad;
    for (size_t i = 0; i < ps.p.size(); ++i) EXPECT_TRUE(torch::equal(ps.p[i], before[i]));
    EXPECT_TRUE(opt.state().empty());
  }
}

// The agreement tests need the kernel on the CPU; elsewhere they skip, saying why.
class FusedAdamWOnCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu_fused()) {
      GTEST_SKIP() << "LibTorch " << TORCH_VERSION
                   << " has no fused AdamW on the CPU (2.4 and later have)";
    }
  }
};

// Same gradients, same update: six steps fused against six of the optimiser's own, two groups
// with their own lr and weight decay, one parameter starting a step late. The tolerance is the
// float kernel's against the loop's double-precision bias corrections.
TEST_F(FusedAdamWOnCpu, MatchesTheOptimisersOwnStep) {
  Params fused(5), loop(5);
  auto fused_opt = make_optimizer(fused), loop_opt = make_optimizer(loop);
  for (int step = 1; step <= kSteps; ++step) {
    step_both(fused, fused_opt, loop, loop_opt, step);
    expect_close(fused, loop, step);
  }
  // The weights moved (a step that did nothing would also "agree").
  EXPECT_FALSE(torch::allclose(fused.p[0], Params(5).p[0]));
}

// The fused step keeps its moments and step counts in the optimiser's own state: a run may go on
// with the loop, and the state it saves (what a checkpoint holds) loads into a fresh optimiser
// that continues exactly as the uninterrupted loop run.
TEST_F(FusedAdamWOnCpu, LeavesTheOptimisersOwnStateForTheLoopAndForCheckpoints) {
  constexpr int kSwitch = 3;
  Params mixed(7), loop(7);
  auto mixed_opt = make_optimizer(mixed), loop_opt = make_optimizer(loop);
  for (int step = 1; step <= kSwitch; ++step) step_both(mixed, mixed_opt, loop, loop_opt, step);
  std::stringstream saved;
  {
    torch::serialize::OutputArchive archive;
    mixed_opt.save(archive);
    archive.save_to(saved);
  }
  Params resumed(8);
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < resumed.p.size(); ++i) resumed.p[i].copy_(mixed.p[i]);
  }
  auto resumed_opt = make_optimizer(resumed);
  {
    torch::serialize::InputArchive archive;
    archive.load_from(saved);
    resumed_opt.load(archive);
  }
  for (int step = kSwitch + 1; step <= kSteps; ++step) {
    for (auto* ps : {&mixed, &loop, &resumed}) set_gradients(*ps, step);
    mixed_opt.step();
    loop_opt.step();
    resumed_opt.step();
    expect_close(mixed, loop, step);
    expect_close(resumed, loop, step);
  }
}

}  // namespace
}  // namespace hnclip
