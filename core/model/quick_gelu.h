#pragma once
// QuickGELU, x · σ(1.702 x): the MLP non-linearity OpenAI's CLIP weights (and Long-CLIP's) were
// trained with. Written out, autograd records it as three element-wise kernels forward and five
// backward, and keeps two tensors of the MLP's hidden size per layer (x and the sigmoid) for the
// backward pass. It is silu(1.702 x) / 1.702 (equal up to rounding), so quick_gelu() runs as one
// custom autograd function: forward y = 1.702 x, silu(y) / 1.702 (three kernels), backward one
// fused silu_backward(grad, y), and only y is kept. The hidden activation is the largest tensor in
// a transformer block, so this is where element-wise time and activation memory go: forward +
// backward of the six MLP shapes of tiny, ViT-B/32 and ViT-L/14 ran 2.0-3.7x faster in fp32 on
// LibTorch 1.13's CPU, 1.9-2.3x in fp32 and 1.3-1.7x in bf16 on 2.6's, keeping 2 hidden-size
// tensors instead of 3 (tests/bench/quick_gelu_vs_written_out; not yet measured on a GPU). The
// exception is bf16 / fp16 on the CPU before LibTorch 2.6, whose silu kernels are not vectorised:
// there the written-out form is faster and is what runs (quick_gelu.cpp).

#include <ATen/core/Tensor.h>

namespace hnclip {

// QuickGELU's slope, as in OpenAI's CLIP (model.py: x * torch.sigmoid(1.702 * x)).
inline constexpr double kQuickGeluSlope = 1.702;

// x · σ(1.702 x), any dtype and device, with a first derivative. A second derivative
// (autograd::grad with create_graph) through the custom function throws std::logic_error rather
// than return a wrong one: the saved y has no history back to x. Nothing in the workbench
// differentiates twice.
at::Tensor quick_gelu(const at::Tensor& x);

}  // namespace hnclip
