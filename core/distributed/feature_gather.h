#pragma once
// gather_with_grad: every rank's rows of a feature matrix, concatenated in rank order, for a loss
// over the global batch (S and Ḡ need every rank's features). This rank's own rows are its live
// tensor, autograd history and all; the other ranks' rows are received copies without gradient —
// open_clip's gather_with_grad=False layout. Every rank then computes the same global loss, and
// each rank's backward yields the gradient through its own rows only: summed over the ranks
// (GradientReducer) that is exactly the one-process gradient of the global loss.
// Ranks may hold different numbers of rows (the last batch of an epoch): they are padded for the
// transfer and trimmed after it.

#include <ATen/core/Tensor.h>

namespace hnclip {

class ProcessGroup;

// local: [n_r, ...] on the group's device. Returns [Σ n_r, ...]. Collective: every rank calls it
// in the same order.
at::Tensor gather_with_grad(ProcessGroup& group, const at::Tensor& local);

}  // namespace hnclip
