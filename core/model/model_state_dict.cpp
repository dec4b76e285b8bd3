#include "model/model_state_dict.h"

#include <torch/torch.h>

#include "model/peft.h"

namespace hnclip {

StateDict model_state_dict(ClipModel& model) {
  // LoRA/DoRA adapters are folded into their base matrices (merged_state_dict leaves the model as
  // it is), so an adapted model exports exactly OpenAI's parameter set.
  StateDict out;
  for (const auto& p : merged_state_dict(model)) {
    out.emplace_back(p.key(), p.value().detach().to(torch::kCPU, torch::kFloat, /*non_blocking=*/false, /*copy=*/true));
  }
  return out;
}

}  // namespace hnclip
