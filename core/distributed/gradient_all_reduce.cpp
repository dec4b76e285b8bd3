#include "distributed/gradient_all_reduce.h"

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distributed/process_group.h"

namespace hnclip {

void all_reduce_gradients(ProcessGroup& group, const std::vector<at::Tensor>& params,
                          int64_t bucket_bytes) {
  torch::NoGradGuard no_grad;
  struct Bucket {
    std::vector<at::Tensor> grads;
    std::vector<at::Tensor> io;  // the flattened bucket; kept alive while its work is in flight
    c10::intrusive_ptr<c10d::Work> work;
  };
  std::vector<Bucket> buckets;
  int64_t filled = 0;
  for (const auto& p : params) {
    auto& g = const_cast<at::Tensor&>(p).mutable_grad();
    if (!g.defined()) g = torch::zeros_like(p);
    const int64_t bytes = g.numel() * static_cast<int64_t>(g.element_size());
    // A bucket holds one dtype: flattening mixes none.
    if (buckets.empty() || filled + bytes > bucket_bytes ||
        buckets.back().grads.front().scalar_type() != g.scalar_type()) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().grads.push_back(g);
    filled += bytes;
  }
  for (auto& b : buckets) {
    std::vector<at::Tensor> flat_views;
    for (const auto& g : b.grads) flat_views.push_back(g.reshape({-1}));
    b.io = {torch::cat(flat_views)};
    b.work = group.c10d_group().allreduce(b.io);  // c10d's default op: sum
  }
  for (auto& b : buckets) {
    b.work->wait();
    int64_t at = 0;
    for (auto& g : b.grads) {
      g.copy_(b.io[0].slice(0, at, at + g.numel()).view_as(g));
      at += g.numel();
    }
  }
}

}  // namespace hnclip
