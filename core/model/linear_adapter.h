#pragma once
// LinearAdapter: a low-rank adapter on one frozen weight matrix W [out, in] (with optional bias),
// either LoRA (Hu et al. 2021) or DoRA (Liu et al. 2024). The adapter does not own W: the layer
// that owns W calls forward(x, W, b) in place of linear(x, W, b), so W keeps its OpenAI name.
//
//   LoRA: W' = W + s·B·A,                    s = alpha / rank
//   DoRA: W' = m ⊙ (W + s·B·A) / ‖W + s·B·A‖  with the norm taken, for each output feature, over
//         the input dimension (the paper's "column-wise" norm of W ∈ R^{d×k} written for x·W; in
//         PyTorch's [out, in] layout that is the norm of each row, as PEFT's dora.py computes it).
//
// A [rank, in] starts uniform in ±1/sqrt(in) (Kaiming-uniform with a = sqrt(5), LoRA's and PEFT's
// choice), B [out, rank] starts at zero and m at ‖W‖ per output feature, so an adapter starts as the
// identity: the adapted model computes what the base model computes. DoRA's norm is detached from
// the graph (the paper's section 4.3, and PEFT): it saves memory and the paper found no loss.
// Not thread-safe; owned by the layer it adapts.

#include <cstdint>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace hnclip {

enum class AdapterKind { Lora, Dora };

class LinearAdapterImpl : public torch::nn::Module {
 public:
  // Shapes, dtype and device follow `weight`; DoRA's magnitude is read from it. `generator` draws A.
  LinearAdapterImpl(AdapterKind kind, const torch::Tensor& weight, int64_t rank, double alpha,
                    at::Generator generator);

  // linear(x, W', bias) without forming W' for LoRA (two thin products on the activations, so
  // backward never computes a full-size weight gradient).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);
  // W' itself, for merging into the base weight.
  torch::Tensor merged_weight(const torch::Tensor& weight) const;

  AdapterKind kind() const { return kind_; }
  int64_t rank() const { return rank_; }
  double alpha() const { return alpha_; }
  double scaling() const { return alpha_ / static_cast<double>(rank_); }

  // Parameter names: lora_A, lora_B (PEFT's) and, for DoRA, magnitude.
  torch::Tensor lora_A, lora_B, magnitude;

 private:
  torch::Tensor direction_norm(const torch::Tensor& weight) const;
  AdapterKind kind_;
  int64_t rank_;
  double alpha_;
};
TORCH_MODULE(LinearAdapter);

}  // namespace hnclip
