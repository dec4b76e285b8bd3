#include "distributed/process_group.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
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

namespace {
std::string where_of(const DistributedSpec& spec) {
  return " (rank " + std::to_string(spec.rank) + " of " + std::to_string(spec.world_size) +
         ", master " + spec.master() + ")";
}
}  // namespace

DistributedBackend resolve_backend(DistributedBackend requested, c10::Device device) {
  if (requested != DistributedBackend::kAuto) return requested;
  return device.is_cuda() && nccl_available() ? DistributedBackend::kNccl
                                              : DistributedBackend::kGloo;
}

ProcessGroup::ProcessGroup(const DistributedSpec& spec)
    : spec_(spec), device_(c10::kCPU), backend_(spec.backend), impl_(std::make_unique<Impl>()) {
  if (!spec.distributed()) {
    throw std::invalid_argument("a process group needs a world size above 1");
  }
  // Under torchrun its agent serves the store; every rank is a client of it.
  const bool agent_store = !spec.agent_store_prefix.empty();
  try {
    c10d::TCPStoreOptions opts;
    opts.port = static_cast<uint16_t>(spec.master_port);
    opts.isServer = spec.rank == 0 && !agent_store;
    opts.numWorkers = static_cast<size_t>(spec.world_size);
    // (The agent's store counts its own workers; forming the group waits for every rank anyway.)
    opts.waitWorkers = !agent_store;
    opts.timeout = spec.timeout;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
    // The classic socket server: LibTorch 2.4 made its libuv server the default, and a LibTorch
    // built without libuv (Debian 13's 2.6) then refuses to start the rendezvous at all. Both
    // speak the same protocol, so ranks of different builds still meet.
    opts.useLibUV = false;
#endif
    impl_->store = c10::make_intrusive<c10d::TCPStore>(spec.master_addr, opts);
    if (agent_store) {
      impl_->store = c10::make_intrusive<c10d::PrefixStore>(spec.agent_store_prefix, impl_->store);
    }
  } catch (const std::exception& e) {
    throw DistributedError(
        (spec.rank == 0 && !agent_store ? "cannot serve the rendezvous on "
                                        : "cannot reach the master at ") +
        spec.master() + " within " + seconds_of(spec.timeout) + where_of(spec) + ": " + e.what());
  }
}

ProcessGroup::ProcessGroup(const DistributedSpec& spec, c10::Device device) : ProcessGroup(spec) {
  join(device);
}

void ProcessGroup::join(c10::Device device) {
  if (impl_->group) throw std::logic_error("ProcessGroup::join: already joined");
  device_ = device;
  backend_ = resolve_backend(backend_, device);
  if (backend_ == DistributedBackend::kNccl) {
    if (!nccl_available()) {
      throw std::invalid_argument(
          "--dist-backend nccl: this LibTorch was built without NCCL (use gloo)");
    }
    if (!device.is_cuda()) {
      throw std::invalid_argument("--dist-backend nccl needs --device cuda (use gloo on the CPU)");
    }
  }
  try {
    if (backend_ == DistributedBackend::kGloo) {
      auto opts = c10d::ProcessGroupGloo::Options::create(spec_.timeout);
      opts->devices.push_back(gloo_device(spec_));
      impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, spec_.rank,
                                                                 spec_.world_size, opts);
    } else {
#ifdef USE_C10D_NCCL
      auto opts = c10d::ProcessGroupNCCL::Options::create();
      opts->timeout = spec_.timeout;
      impl_->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(impl_->store, spec_.rank,
                                                                 spec_.world_size, opts);
#endif
    }
  } catch (const std::exception& e) {
    throw DistributedError("cannot form the " + to_string(backend_) + " process group" +
                           where_of(spec_) + ": " + e.what());
  }
}

bool ProcessGroup::joined() const { return static_cast<bool>(impl_->group); }

void ProcessGroup::publish(const std::string& key, const std::string& value) {
  impl_->store->set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

std::string ProcessGroup::wait_for(const std::string& key, const std::string& from) {
  try {
    const auto bytes = impl_->store->get(key);  // waits up to the store's timeout
    return std::string(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    throw DistributedError("no '" + key + "' from " + from + " within " +
                           seconds_of(spec_.timeout) + where_of(spec_) + ": " + e.what());
  }
}

bool ProcessGroup::published_within(const std::string& key, std::chrono::milliseconds within) {
  try {
    impl_->store->wait({key}, within);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

ProcessGroup::~ProcessGroup() = default;

C10dCollectives& ProcessGroup::c10d_group() {
  if (!impl_->group) throw std::logic_error("ProcessGroup: collectives before join()");
  return *impl_->group;
}

void ProcessGroup::wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
  const auto start = std::chrono::steady_clock::now();
  try {
    work->wait();
    collective_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } catch (const std::exception& e) {
    // c10d's own text ends in a stack trace on 1.x; its first line says what happened.
    std::string first = e.what();
    first = first.substr(0, first.find('\n'));
    throw DistributedError(std::string(what) + " failed" + where_of(spec_) +
                           " — a peer died, stopped or took longer than " +
                           seconds_of(spec_.timeout) + ": " + first);
  }
}

void barrier(ProcessGroup& group) {
  // A barrier as an all-reduce of one number: Gloo's own barrier takes no device and NCCL's
  // guesses one; this works the same on both.
  std::vector<at::Tensor> one{torch::zeros({1}, torch::TensorOptions().device(group.device()))};
  group.wait(group.c10d_group().allreduce(one), "barrier");
}

void all_reduce_sum(ProcessGroup& group, const std::vector<at::Tensor>& tensors,
                    int64_t bucket_bytes) {
  torch::NoGradGuard no_grad;
  struct Bucket {
    std::vector<at::Tensor> parts;
    std::vector<at::Tensor> io;  // the flattened bucket; kept alive while its work is in flight
    c10::intrusive_ptr<c10d::Work> work;
  };
  std::vector<Bucket> buckets;
  int64_t filled = 0;
  for (const auto& t : tensors) {
    const int64_t bytes = t.numel() * static_cast<int64_t>(t.element_size());
    // A bucket holds one dtype: flattening mixes none.
    if (buckets.empty() || filled + bytes > bucket_bytes ||
        buckets.back().parts.front().scalar_type() != t.scalar_type()) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().parts.push_back(t);
    filled += bytes;
  }
  for (auto& b : buckets) {
    std::vector<at::Tensor> flat_views;
    for (const auto& t : b.parts) flat_views.push_back(t.reshape({-1}));
    b.io = {torch::cat(flat_views)};
    b.work = group.c10d_group().allreduce(b.io);  // c10d's default op: sum
  }
  for (auto& b : buckets) {
    group.wait(b.work, "gradient all-reduce");
    int64_t at = 0;
    for (auto& t : b.parts) {
      const_cast<at::Tensor&>(t).copy_(b.io[0].slice(0, at, at + t.numel()).view_as(t));
      at += t.numel();
    }
  }
}

void broadcast(ProcessGroup& group, std::vector<at::Tensor> tensors, int root) {
  c10d::BroadcastOptions opts;
  opts.rootRank = root;
  for (auto& t : tensors) {
    std::vector<at::Tensor> one{t};
    group.wait(group.c10d_group().broadcast(one, opts), "broadcast");
  }
}

}  // namespace hnclip
