#include "distributed/gradient_all_reduce.h"

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distributed/process_group.h"

namespace hnclip {

void all_reduce_gradients(ProcessGroup& group, const std::vector<at::Tensor>& params,
                          int64_t bucket_bytes) {
  std::vector<at::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) {
    auto& g = const_cast<at::Tensor&>(p).mutable_grad();
    if (!g.defined()) g = torch::zeros_like(p);
    grads.push_back(g);
  }
  all_reduce_sum(group, grads, bucket_bytes);
}

}  // namespace hnclip
