#pragma once
// ProcessGroup: this process's membership of a data-parallel run, on PyTorch's own c10d — a
// TCPStore rendezvous served by rank 0 at the master address, then a Gloo (CPU) or NCCL (CUDA)
// process group, with the spec's timeout on the rendezvous and on every collective. The
// collectives the trainer needs (gather with gradient, gradient all-reduce, broadcast, barrier)
// are free functions in this folder that take it.
// Threading: one thread at a time (c10d's collectives are issued in order on every rank).

#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/version.h>

#include "distributed/distributed_spec.h"

namespace c10d {
class ProcessGroup;
class Backend;
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

class ProcessGroup {
 public:
  // Joins the run described by `spec` (world_size > 1) for tensors on `device`: the backend is
  // spec.backend, or for auto NCCL on CUDA and Gloo otherwise. Throws std::runtime_error that
  // names the master's ADDR:PORT when the rendezvous fails (rank 0 cannot serve it, another rank
  // cannot reach it, or not every rank arrives within the timeout), and std::invalid_argument for
  // NCCL on a LibTorch built without it or on a CPU device.
  ProcessGroup(const DistributedSpec& spec, c10::Device device);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return spec_.rank; }
  int world_size() const { return spec_.world_size; }
  const DistributedSpec& spec() const { return spec_; }
  DistributedBackend backend() const { return backend_; }  // never kAuto
  c10::Device device() const { return device_; }           // where its tensors live
  C10dCollectives& c10d_group();

 private:
  struct Impl;
  DistributedSpec spec_;
  c10::Device device_;
  DistributedBackend backend_;
  std::unique_ptr<Impl> impl_;
};

// Whether this LibTorch was built with NCCL (the CUDA builds GPU users have; not Debian's).
bool nccl_available();

// Waits until every rank has arrived; throws std::runtime_error after the timeout.
void barrier(ProcessGroup& group);

// Copies rank `root`'s tensors into every rank's, in place (the start weights, so that every rank
// begins from the same point even if their files differ). Pass parameters detached (`p.detach()`
// shares the storage): the copy is not something autograd should see.
void broadcast(ProcessGroup& group, std::vector<at::Tensor> tensors, int root = 0);

}  // namespace hnclip
