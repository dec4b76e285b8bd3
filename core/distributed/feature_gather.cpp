#include "distributed/feature_gather.h"

#include <algorithm>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distributed/process_group.h"

namespace hnclip {

at::Tensor gather_with_grad(ProcessGroup& group, const at::Tensor& local) {
  const int world = group.world_size();
  auto& pg = group.c10d_group();
  // Row counts first: all-gather moves equal shapes only.
  std::vector<std::vector<at::Tensor>> counts(1);
  for (int r = 0; r < world; ++r) counts[0].push_back(torch::zeros({1}, torch::TensorOptions().dtype(torch::kLong).device(local.device())));
  std::vector<at::Tensor> mine{torch::full({1}, local.size(0), torch::TensorOptions().dtype(torch::kLong).device(local.device()))};
  group.wait(pg.allgather(counts, mine), "feature gather");
  std::vector<int64_t> rows(world);
  for (int r = 0; r < world; ++r) rows[r] = counts[0][r].item<int64_t>();
  const int64_t most = *std::max_element(rows.begin(), rows.end());

  auto sent = local.detach();
  if (sent.size(0) < most) {
    auto shape = sent.sizes().vec();
    shape[0] = most - sent.size(0);
    sent = torch::cat({sent, torch::zeros(shape, sent.options())}, 0);
  }
  sent = sent.contiguous();
  std::vector<std::vector<at::Tensor>> parts(1);
  for (int r = 0; r < world; ++r) parts[0].push_back(torch::empty_like(sent));
  std::vector<at::Tensor> in{sent};
  group.wait(pg.allgather(parts, in), "feature gather");
  std::vector<at::Tensor> rows_in_order;
  rows_in_order.reserve(world);
  for (int r = 0; r < world; ++r) {
    rows_in_order.push_back(r == group.rank() ? local : parts[0][r].slice(0, 0, rows[r]));
  }
  return torch::cat(rows_in_order, 0);
}

}  // namespace hnclip
