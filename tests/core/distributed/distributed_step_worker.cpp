// distributed_step_worker: one rank of test_distributed_training's data-parallel run (or, with
// world size 1, the one-process reference). It trains the tiny test model for --steps AdamW steps
// on one fixed global batch with the HN loss, its shard being rows [rank·B/W, (rank+1)·B/W) —
// features gathered with gradient, S and Ḡ over the global batch, gradients summed over the
// ranks — and saves the loss of every step, every gradient of step 1 and the final weights to
// --out (torch::save archive: "loss" [steps], "grad/<name>", "weight/<name>"; and "buckets", the
// GradientReducer's bucket count, and "overlapped", how many bucket all-reduces over all steps
// were issued while the backward still ran).
// Rank, world size and master come from the env:// variables torchrun sets (RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT), as in `hnclip train`; --timeout-s bounds the rendezvous;
// --rank0-term W adds a parameter only rank 0's loss reaches (saved as "grad/extra", "weight/extra").
// Exit 0 on success, 1 with one line on stderr otherwise.

#include <cstdlib>
#include <iostream>
#include <string>

#include <torch/torch.h>

#include "distributed/distributed_spec.h"
#include "distributed/feature_gather.h"
#include "distributed/gradient_reducer.h"
#include "distributed/process_group.h"
#include "loss/hn_contrastive_loss.h"
#include "model/make_clip_model.h"
#include "support/in_memory_data.h"

namespace {

constexpr int64_t kModelSeed = 42;
constexpr int64_t kBatchSeed = 7;
constexpr double kLearningRate = 1e-3;
constexpr int64_t kBucketBytes = 16 << 10;
constexpr int64_t kFirstBucketBytes = 4 << 10;

torch::Tensor normalize(const torch::Tensor& x) {
  return torch::nn::functional::normalize(x, torch::nn::functional::NormalizeFuncOptions().dim(-1));
}

// The fixed global batch: images, and captions of 2-5 words between the start and end tokens.
std::pair<torch::Tensor, torch::Tensor> global_batch(int64_t n) {
  auto gen = at::detail::createCPUGenerator(kBatchSeed);
  auto images = torch::randn({n, 3, hnclip::test::kTinyImage, hnclip::test::kTinyImage}, gen);
  auto tokens = torch::zeros({n, hnclip::test::kTinyContext}, torch::kLong);
  auto words = torch::randint(2, 16, {n, hnclip::test::kTinyContext}, gen, torch::kLong);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = 2 + i % 4;
    tokens[i][0] = 18;
    tokens[i].slice(0, 1, 1 + len).copy_(words[i].slice(0, 0, len));
    tokens[i][1 + len] = 19;
  }
  return {images, tokens};
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, gbar = "recomputed";
  int steps = 3;
  int64_t batch = 8;
  double gamma = 0.5, timeout_s = 60, rank0_term = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--out") out = v;
    else if (a == "--steps") steps = std::stoi(v);
    else if (a == "--batch") batch = std::stoll(v);
    else if (a == "--gamma") gamma = std::stod(v);
    else if (a == "--gbar") gbar = v;
    else if (a == "--timeout-s") timeout_s = std::stod(v);
    else if (a == "--rank0-term") rank0_term = std::stod(v);
    else {
      std::cerr << "distributed_step_worker: unknown option " << a << "\n";
      return 1;
    }
  }
  try {
    torch::set_num_threads(1);
    hnclip::DistributedFlags flags;
    flags.timeout_s = timeout_s;
    const auto spec = hnclip::resolve_distributed_spec(flags);
    std::unique_ptr<hnclip::ProcessGroup> group;
    if (spec.distributed()) group = std::make_unique<hnclip::ProcessGroup>(spec, torch::kCPU);

    auto model = hnclip::make_clip_model(hnclip::test::tiny_test_config(), kModelSeed);
    auto frozen = hnclip::make_clip_model(hnclip::test::tiny_test_config(), kModelSeed);
    frozen->eval();
    for (auto& p : frozen->parameters()) p.set_requires_grad(false);
    const auto [images, tokens] = global_batch(batch);
    const int64_t lo = batch * spec.rank / spec.world_size;
    const int64_t hi = batch * (spec.rank + 1) / spec.world_size;

    std::vector<torch::Tensor> summed;  // every parameter but the logit scale (see GradientReducer)
    for (const auto& p : model->named_parameters()) {
      if (p.key() != "logit_scale") summed.push_back(p.value());
    }
    // --rank0-term W: a parameter outside the model that only rank 0's loss reaches (W·|extra|²):
    // on the other ranks no gradient hook sees it, so it takes part as zeros and the sum is
    // rank 0's gradient alone — the one process's, which adds the term once.
    auto extra = torch::linspace(-1, 1, 5).requires_grad_(rank0_term != 0);
    if (rank0_term != 0) summed.insert(summed.begin(), extra);
    // Small buckets, so that the tiny model has several and the overlap can be seen.
    std::unique_ptr<hnclip::GradientReducer> reducer;
    if (group) {
      reducer = std::make_unique<hnclip::GradientReducer>(*group, summed, kBucketBytes,
                                                          kFirstBucketBytes);
    }
    int64_t overlapped = 0;
    auto trained = model->parameters();
    if (rank0_term != 0) trained.push_back(extra);
    torch::optim::AdamW opt(trained, torch::optim::AdamWOptions(kLearningRate));
    torch::serialize::OutputArchive archive;
    std::vector<double> losses;
    for (int step = 1; step <= steps; ++step) {
      opt.zero_grad();
      auto img = normalize(model->encode_image(images.slice(0, lo, hi)).pooled);
      auto txt = normalize(model->encode_text(tokens.slice(0, lo, hi)).pooled);
      torch::Tensor for_g;
      if (gbar == "frozen") {
        torch::NoGradGuard no_grad;
        for_g = normalize(frozen->encode_text(tokens.slice(0, lo, hi)).pooled);
      }
      if (group) {
        img = hnclip::gather_with_grad(*group, img);
        txt = hnclip::gather_with_grad(*group, txt);
        if (for_g.defined()) for_g = hnclip::gather_with_grad(*group, for_g);
      }
      auto loss = hnclip::hn_contrastive_loss(img, txt, model->scale(), gamma,
                                              for_g.defined() ? for_g : txt).loss;
      auto optimised = loss;
      if (rank0_term != 0 && spec.rank == 0) optimised = loss + rank0_term * (extra * extra).sum();
      if (reducer) reducer->prepare();
      optimised.backward();
      if (reducer) {
        reducer->finish();
        overlapped += reducer->overlapped_buckets();
      }
      losses.push_back(loss.item<double>());
      if (step == 1) {
        for (const auto& p : model->named_parameters()) archive.write("grad/" + p.key(), p.value().grad().clone());
        if (rank0_term != 0) archive.write("grad/extra", extra.grad().clone());
      }
      opt.step();
    }
    for (const auto& p : model->named_parameters()) archive.write("weight/" + p.key(), p.value().detach().clone());
    if (rank0_term != 0) archive.write("weight/extra", extra.detach().clone());
    archive.write("loss", torch::tensor(losses, torch::kDouble));
    archive.write("buckets", torch::tensor(reducer ? reducer->buckets() : 0, torch::kLong));
    archive.write("overlapped", torch::tensor(overlapped, torch::kLong));
    archive.save_to(out);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "distributed_step_worker: " << e.what() << "\n";
    return 1;
  }
}
