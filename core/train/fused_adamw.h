#pragma once
// FusedAdamW: one step of a torch::optim::AdamW taken with LibTorch 2.x's multi-tensor kernel
// at::_fused_adamw_ instead of the optimiser's own loop (about ten kernels per tensor). On an
// H200, ViT-L/14 (tests/bench/gpu_step, docs/perf/gpu_step.json) the loop took 32 ms of a 338 ms
// step and the fused kernel 4.6 ms. The step reads and writes the optimiser's own state (exp_avg,
// exp_avg_sq, step), so checkpoints stay what torch::optim::AdamW saves and loads, and a run may
// switch between the two paths at any step. Called from the training thread only.

#include <c10/core/Device.h>

namespace torch::optim {
class AdamW;
}  // namespace torch::optim

namespace hnclip {

// Whether this LibTorch has the fused kernel for `device`: CUDA from LibTorch 2.0, the CPU from
// 2.4; never on LibTorch 1.13.
bool fused_adamw_supported(const c10::Device& device);

// Takes one AdamW step of `optimizer` over every parameter that has a gradient, as
// optimizer.step() would (decoupled weight decay, bias-corrected moments, per-group lr, betas,
// eps and weight decay). Returns false and changes nothing when the fused kernel cannot take
// this step (a parameter on a device fused_adamw_supported refuses, AMSGrad, a sparse gradient):
// the caller then calls optimizer.step().
bool fused_adamw_step(torch::optim::AdamW& optimizer);

}  // namespace hnclip
