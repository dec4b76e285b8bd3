#include "distributed/step_agreement.h"

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distributed/process_group.h"

namespace hnclip {

StepAgreement agree_on_step(ProcessGroup& group, bool stop, const RankProgress& mine) {
  // Doubles, so that row counts and seconds survive exactly; four numbers per rank cost what
  // one would on Gloo or NCCL.
  const auto opts = torch::TensorOptions().dtype(torch::kDouble).device(group.device());
  std::vector<at::Tensor> in{torch::tensor({stop ? 1.0 : 0.0, mine.rows, mine.seconds,
                                            mine.collective_seconds},
                                           torch::kDouble)
                                 .to(group.device())};
  std::vector<std::vector<at::Tensor>> out(1);
  for (int r = 0; r < group.world_size(); ++r) out[0].push_back(torch::empty({4}, opts));
  group.wait(group.c10d_group().allgather(out, in), "step agreement");
  StepAgreement agreed;
  for (const auto& t : out[0]) {
    const auto v = t.to(torch::kCPU);
    const auto* d = v.data_ptr<double>();
    agreed.stop = agreed.stop || d[0] > 0;
    agreed.ranks.push_back({d[1], d[2], d[3]});
  }
  return agreed;
}

}  // namespace hnclip
