#include "model/model_state_dict.h"

#include <torch/torch.h>

namespace hnclip {

StateDict model_state_dict(ClipModel& model) {
  StateDict out;
  for (const auto& p : model->named_parameters()) {
    out.emplace_back(p.key(), p.value().detach().to(torch::kCPU, torch::kFloat, /*non_blocking=*/false, /*copy=*/true));
  }
  return out;
}

}  // namespace hnclip
