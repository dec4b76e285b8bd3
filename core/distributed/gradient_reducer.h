#pragma once
// GradientReducer: sums the gradients of `params` over every rank while the backward is still
// running — DDP's overlap, on the hooks LibTorch's C++ API offers. Each parameter carries a
// gradient hook; when every gradient of a bucket has arrived, the bucket is flattened and its
// all-reduce issued asynchronously, so the transfer of the last layers' gradients runs while
// autograd still computes the first layers'. finish() then issues the buckets still waiting (a
// gradient no hook saw taking part as its .grad, or zeros), waits for every bucket and writes the
// sums into .grad.
//
// Summed, not averaged: with gather_with_grad every rank computes the same global loss and its
// backward reaches the parameters only through its own rows, so the sum is the one-process
// gradient exactly. A parameter the loss uses directly on the gathered features (the logit scale)
// already has the whole gradient on every rank and must not be passed here, or it would count
// `world size` times.
//
// Buckets follow the parameters in reverse order (autograd reaches the last-registered layers
// first), the first one small so that the first transfer starts early — DDP's layout. Buckets are
// issued strictly in their order on every rank, whatever order the hooks fire in, because c10d
// matches collectives by the order they are issued in.
// Ownership: keeps handles to the parameters (not copies) and its hooks on them until destroyed.
// Threading: the hooks run on autograd's thread for the parameters' device; one backward at a time.

#include <cstdint>
#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

class ProcessGroup;

inline constexpr int64_t kGradientBucketBytes = 25 << 20;  // DDP's default bucket_cap_mb
inline constexpr int64_t kFirstGradientBucketBytes = 1 << 20;  // DDP's first bucket

class GradientReducer {
 public:
  // Every rank must pass the same parameters (shapes and order). Installs the hooks.
  GradientReducer(ProcessGroup& group, std::vector<at::Tensor> params,
                  int64_t bucket_bytes = kGradientBucketBytes,
                  int64_t first_bucket_bytes = kFirstGradientBucketBytes);
  ~GradientReducer();  // removes the hooks
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Arms the hooks for the next backward; any other backward (a probe's autograd::grad) passes
  // them untouched.
  void prepare();
  // After that backward: every parameter's .grad is the sum over the ranks (a parameter whose
  // gradient no hook saw takes part as its .grad, or zeros when that is undefined). Throws
  // DistributedError when a peer is lost. Disarms the hooks.
  void finish();

  int buckets() const;
  // Of the last backward's buckets, how many were issued while other gradients were still being
  // computed: what the overlap achieved.
  int overlapped_buckets() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hnclip
