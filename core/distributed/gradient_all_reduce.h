#pragma once
// all_reduce_gradients: sums the gradients of `params` over every rank, in place, in buckets.
// Summed, not averaged: with gather_with_grad every rank computes the same global loss and its
// backward reaches the parameters only through its own rows, so the sum is the one-process
// gradient exactly. A parameter the loss uses directly on the gathered features (the logit scale)
// already has the whole gradient on every rank and must not be passed here, or it would count
// `world size` times.
// Buckets of up to kGradientBucketBytes are flattened and all reduced asynchronously, all in
// flight at once, then copied back — after the backward, not overlapped with it (c10d's Reducer
// does that for Python's DDP through hooks this code does not install; measured in the README).

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

class ProcessGroup;

inline constexpr int64_t kGradientBucketBytes = 25 << 20;  // DDP's default bucket_cap_mb

// Every rank must pass the same parameters in the same order. A parameter whose gradient is
// undefined on this rank takes part as zeros (it gets one if another rank's is non-zero).
void all_reduce_gradients(ProcessGroup& group, const std::vector<at::Tensor>& params,
                          int64_t bucket_bytes = kGradientBucketBytes);

}  // namespace hnclip
