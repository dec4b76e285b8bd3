#pragma once
// DistributedSpec: where this process sits in a data-parallel run — world size, rank, local rank,
// the rendezvous address and the backend — resolved from `hnclip train`'s flags and the env://
// variables torchrun sets (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT), so an
// unchanged torchrun-style launcher works. A flag wins over its variable. No variables and no
// flags: one process (world size 1), the workbench's ordinary run.
// Plain data; resolve_distributed_spec reads the environment and may be called from any thread.

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace hnclip {

enum class DistributedBackend { kAuto, kGloo, kNccl };  // auto: NCCL on CUDA, Gloo elsewhere

struct DistributedSpec {
  int world_size = 1;
  int rank = 0;
  int local_rank = 0;            // this host's index of the process (picks cuda:LOCAL_RANK)
  std::string master_addr;       // rank 0's host; empty when world_size == 1
  int master_port = 0;
  DistributedBackend backend = DistributedBackend::kAuto;
  // Every collective and the rendezvous give up after this: a rank that died or never came makes
  // the others fail with a clear error instead of hanging.
  std::chrono::milliseconds timeout = std::chrono::minutes(5);
  // Under torchrun (TORCHELASTIC_USE_AGENT_STORE=True) its agent already serves the rendezvous
  // store at the master address: every rank connects to it as a client, under this key prefix
  // ("/worker/attempt_<TORCHELASTIC_RESTART_COUNT>", as PyTorch's own ranks do). Empty otherwise:
  // rank 0 serves the store itself.
  std::string agent_store_prefix;

  bool distributed() const { return world_size > 1; }
  std::string master() const { return master_addr + ":" + std::to_string(master_port); }
};

// What the command line gave; unset fields fall back to the environment.
struct DistributedFlags {
  std::optional<int> world_size, rank, local_rank;
  std::optional<std::string> master;   // "ADDR:PORT"
  std::optional<std::string> backend;  // auto | gloo | nccl
  std::optional<double> timeout_s;
};

// Resolves flags over the environment (`getenv`, replaceable for tests). Throws
// std::invalid_argument naming the flag or variable for a value that is not a number, a rank
// outside [0, world size), a world size below 1, a missing or malformed master when world size
// > 1 ("--master ADDR:PORT or MASTER_ADDR and MASTER_PORT"), a port outside 1-65535, an unknown
// backend or a timeout that is not positive.
DistributedSpec resolve_distributed_spec(
    const DistributedFlags& flags,
    const std::function<const char*(const char*)>& getenv_fn = nullptr);

std::string to_string(DistributedBackend b);

}  // namespace hnclip
