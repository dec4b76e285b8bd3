#pragma once
// ProcessGroup: this process's membership of a data-parallel run, on PyTorch's own c10d — a
// TCPStore rendezvous served by rank 0 at the master address, then a Gloo (CPU) or NCCL (CUDA)
// process group, with the spec's timeout on the rendezvous and on every collective. The
// collectives the trainer needs (gather with gradient, gradient all-reduce, broadcast, barrier)
// are free functions in this folder that take it.
// Threading: one thread at a time (c10d's collectives are issued in order on every rank).

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/version.h>

#include "distributed/distributed_spec.h"

namespace c10d {
class ProcessGroup;
class Backend;
class Work;
}  // namespace c10d

namespace hnclip {

// What the collectives are issued on: c10d's Gloo and NCCL groups derive from ProcessGroup in
// LibTorch 1.x and from Backend since 2.0 (where ProcessGroup became a dispatcher over backends);
// both declare the same allgather / allreduce / broadcast.
#if TORCH_VERSION_MAJOR >= 2
using C10dCollectives = c10d::Backend;
#else
using C10dCollectives = c10d::ProcessGroup;
#endif

// A collective or the rendezvous failed: a peer died, was stopped, or did not answer within the
// timeout. The run cannot go on in this process, but it can be resumed (the trainer marks it
// `interrupted`, not `failed`). The message names this rank and what failed.
class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ProcessGroup {
 public:
  // The rendezvous alone (world_size > 1): rank 0 serves a TCPStore at the master address, the
  // others connect to it. Enough to exchange the run's description (publish / wait_for) before
  // the device is known; join() then forms the collectives. Throws DistributedError naming the
  // master's ADDR:PORT when it fails (rank 0 cannot serve it, another rank cannot reach it, or not
  // every rank arrives within the timeout).
  explicit ProcessGroup(const DistributedSpec& spec);
  // Rendezvous and join(device) in one.
  ProcessGroup(const DistributedSpec& spec, c10::Device device);
  ~ProcessGroup();
  // Forms the Gloo or NCCL group for tensors on `device`: the backend is spec.backend, or for auto
  // NCCL on CUDA and Gloo otherwise. Throws std::invalid_argument for NCCL on a LibTorch built
  // without it or on a CPU device, DistributedError when the group cannot be formed. Once only.
  void join(c10::Device device);
  bool joined() const;

  // The rendezvous store's key–value exchange: rank 0 publishes what every rank must agree on
  // (the run's configuration and starting point) and the others what they were asked to run;
  // whoever waits for a key waits up to the timeout, then DistributedError naming the key.
  void publish(const std::string& key, const std::string& value);
  // `from` names who publishes it ("rank 0"), for the error.
  std::string wait_for(const std::string& key, const std::string& from);
  // Whether `key` is published within `within` (false on a timeout or a lost store, never a
  // throw): for a courtesy wait that must not turn into an error of its own.
  bool published_within(const std::string& key, std::chrono::milliseconds within);
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return spec_.rank; }
  int world_size() const { return spec_.world_size; }
  const DistributedSpec& spec() const { return spec_; }
  DistributedBackend backend() const { return backend_; }  // never kAuto once joined
  c10::Device device() const { return device_; }           // where its tensors live
  // Throws std::logic_error before join().
  C10dCollectives& c10d_group();
  // Waits for a collective's work; a failure (a peer gone, the timeout) becomes DistributedError
  // naming this rank and `what`.
  void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what);
  // Seconds this process has spent in wait() so far: transfers, and waiting for slower ranks.
  double collective_seconds() const { return collective_seconds_; }

 private:
  struct Impl;
  DistributedSpec spec_;
  c10::Device device_;
  DistributedBackend backend_;
  double collective_seconds_ = 0;
  std::unique_ptr<Impl> impl_;
};

// Whether this LibTorch was built with NCCL (the CUDA builds GPU users have; not Debian's).
bool nccl_available();

// What `requested` means for tensors on `device`: auto is NCCL on CUDA (when built in) and Gloo
// otherwise; an explicit choice stays (join() refuses one that cannot work).
DistributedBackend resolve_backend(DistributedBackend requested, c10::Device device);

// Waits until every rank has arrived; throws DistributedError after the timeout.
void barrier(ProcessGroup& group);

// Sums each tensor over every rank, in place, in flattened buckets of up to `bucket_bytes` that
// are all in flight at once. Every rank passes tensors of the same shapes in the same order.
void all_reduce_sum(ProcessGroup& group, const std::vector<at::Tensor>& tensors,
                    int64_t bucket_bytes);

// Copies rank `root`'s tensors into every rank's, in place (the start weights, so that every rank
// begins from the same point even if their files differ). Pass parameters detached (`p.detach()`
// shares the storage): the copy is not something autograd should see.
void broadcast(ProcessGroup& group, std::vector<at::Tensor> tensors, int root = 0);

}  // namespace hnclip
