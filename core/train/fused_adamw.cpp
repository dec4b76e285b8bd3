#include "train/fused_adamw.h"

#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <torch/torch.h>

namespace hnclip {
namespace {

// The key torch::optim keeps a parameter's state under: the TensorImpl's address, printed to a
// string in LibTorch 1.13 (by c10::guts::to_string, an ostream, gone in 2.x) and the pointer
// itself in 2.x.
template <typename StateMap>
typename StateMap::key_type state_key(const torch::Tensor& p) {
  using Key = typename StateMap::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream address;
    address << p.unsafeGetTensorImpl();
    return address.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

}  // namespace

bool fused_adamw_supported(const c10::Device& device) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return device.is_cuda() || device.is_cpu();
#elif TORCH_VERSION_MAJOR >= 2
  return device.is_cuda();
#else
  (void)device;
  return false;
#endif
}

bool fused_adamw_step(torch::optim::AdamW& optimizer) {
#if TORCH_VERSION_MAJOR >= 2
  // Refuse before touching anything, so that the caller's fallback starts from the same state.
  for (auto& group : optimizer.param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(group.options());
    if (options.amsgrad()) return false;
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (p.grad().is_sparse() || !fused_adamw_supported(p.device())) return false;
    }
  }
  torch::NoGradGuard no_grad;
  auto& state = optimizer.state();
  using StateMap = std::decay_t<decltype(state)>;
  for (auto& group : optimizer.param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(group.options());
    // One kernel call per device and dtype: the kernel takes lists of one kind only.
    struct Lists {
      std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
      std::vector<double> steps;
      std::vector<torch::optim::AdamWParamState*> states;
    };
    std::map<std::tuple<int, int, int>, Lists> lists;
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = state[state_key<StateMap>(p)];
      if (!slot) {
        // What torch::optim::AdamW creates on a parameter's first step.
        auto fresh = std::make_unique<torch::optim::AdamWParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        slot = std::move(fresh);
      }
      auto& s = static_cast<torch::optim::AdamWParamState&>(*slot);
      auto& l = lists[{static_cast<int>(p.device().type()), p.device().index(),
                       static_cast<int>(p.scalar_type())}];
      l.params.push_back(p);
      l.grads.push_back(p.grad());
      l.exp_avgs.push_back(s.exp_avg());
      l.exp_avg_sqs.push_back(s.exp_avg_sq());
      l.steps.push_back(static_cast<double>(s.step() + 1));  // this step's number
      l.states.push_back(&s);
    }
    for (auto& [kind, l] : lists) {
      // The kernel reads this step's number (the count after it, as torch.optim adds 1 before
      // the call; the kernel itself adds nothing) from float tensors on the parameters' device,
      // one per parameter: one copy in, views of it for the kernel. The optimiser's own integer
      // count follows on the host.
      const auto steps = torch::tensor(l.steps, torch::kFloat).to(l.params.front().device());
      const auto step_views = steps.unbind(0);
      at::_fused_adamw_(l.params, l.grads, l.exp_avgs, l.exp_avg_sqs, /*max_exp_avg_sqs=*/{},
                        step_views, options.lr(), std::get<0>(options.betas()),
                        std::get<1>(options.betas()), options.weight_decay(), options.eps(),
                        /*amsgrad=*/false, /*maximize=*/false);
      for (auto* s : l.states) s->step(s->step() + 1);
    }
  }
  return true;
#else
  (void)optimizer;
  return false;
#endif
}

}  // namespace hnclip
