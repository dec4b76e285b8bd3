#include "distributed/process_group.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace hnclip {

namespace {
std::string seconds_of(std::chrono::milliseconds t) {
  return std::to_string(static_cast<double>(t.count()) / 1000.0) + " s";
}

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

// Gloo needs the network interface its peers reach this host on: GLOO_SOCKET_IFNAME when set (as
// PyTorch reads it), the loopback device for a run on this machine, else the one this host's name
// resolves to.
std::shared_ptr<::gloo::transport::Device> gloo_device(const DistributedSpec& spec) {
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname != nullptr && *ifname) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
  }
  if (is_loopback(spec.master_addr)) {
    return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  }
  return c10d::ProcessGroupGloo::createDefaultDevice();
}
}  // namespace

struct ProcessGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<C10dCollectives> group;
};

bool nccl_available() {
#ifdef USE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

ProcessGroup::ProcessGroup(const DistributedSpec& spec, c10::Device device)
    : spec_(spec), device_(device), backend_(spec.backend), impl_(std::make_unique<Impl>()) {
  if (!spec.distributed()) {
    throw std::invalid_argument("a process group needs a world size above 1");
  }
  if (backend_ == DistributedBackend::kAuto) {
    backend_ = device.is_cuda() && nccl_available() ? DistributedBackend::kNccl
                                                                   : DistributedBackend::kGloo;
  }
  if (backend_ == DistributedBackend::kNccl) {
    if (!nccl_available()) {
      throw std::invalid_argument(
          "--dist-backend nccl: this LibTorch was built without NCCL (use gloo)");
    }
    if (!device.is_cuda()) {
      throw std::invalid_argument("--dist-backend nccl needs --device cuda (use gloo on the CPU)");
    }
  }
  const std::string where = " (rank " + std::to_string(spec.rank) + " of " +
                            std::to_string(spec.world_size) + ", master " + spec.master() + ")";
  try {
    c10d::TCPStoreOptions opts;
    opts.port = static_cast<uint16_t>(spec.master_port);
    opts.isServer = spec.rank == 0;
    opts.numWorkers = static_cast<size_t>(spec.world_size);
    opts.waitWorkers = true;
    opts.timeout = spec.timeout;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
    // The classic socket server: LibTorch 2.4 made its libuv server the default, and a LibTorch
    // built without libuv (Debian 13's 2.6) then refuses to start the rendezvous at all. Both
    // speak the same protocol, so ranks of different builds still meet.
    opts.useLibUV = false;
#endif
    impl_->store = c10::make_intrusive<c10d::TCPStore>(spec.master_addr, opts);
  } catch (const std::exception& e) {
    throw std::runtime_error(
        (spec.rank == 0 ? "cannot serve the rendezvous on " : "cannot reach the master at ") +
        spec.master() + " within " + seconds_of(spec.timeout) + where + ": " + e.what());
  }
  try {
    if (backend_ == DistributedBackend::kGloo) {
      auto opts = c10d::ProcessGroupGloo::Options::create(spec.timeout);
      opts->devices.push_back(gloo_device(spec));
      impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, spec.rank,
                                                                 spec.world_size, opts);
    } else {
#ifdef USE_C10D_NCCL
      auto opts = c10d::ProcessGroupNCCL::Options::create();
      opts->timeout = spec.timeout;
      impl_->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(impl_->store, spec.rank,
                                                                 spec.world_size, opts);
#endif
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot form the " + to_string(backend_) + " process group" + where +
                             ": " + e.what());
  }
}

ProcessGroup::~ProcessGroup() = default;

C10dCollectives& ProcessGroup::c10d_group() { return *impl_->group; }

void barrier(ProcessGroup& group) {
  // A barrier as an all-reduce of one number: Gloo's own barrier takes no device and NCCL's
  // guesses one; this works the same on both.
  std::vector<at::Tensor> one{torch::zeros({1}, torch::TensorOptions().device(group.device()))};
  group.c10d_group().allreduce(one)->wait();
}

void broadcast(ProcessGroup& group, std::vector<at::Tensor> tensors, int root) {
  c10d::BroadcastOptions opts;
  opts.rootRank = root;
  for (auto& t : tensors) {
    std::vector<at::Tensor> one{t};
    group.c10d_group().broadcast(one, opts)->wait();
  }
}

}  // namespace hnclip
