#include "distributed/distributed_spec.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace hnclip {

namespace {
constexpr int kMaxPort = 65535;

// A whole decimal integer or nothing (std::stoi would take "2x" as 2).
int parse_int(const std::string& text, const std::string& what) {
  if (text.empty()) throw std::invalid_argument(what + " is empty");
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE || v < INT32_MIN || v > INT32_MAX) {
    throw std::invalid_argument(what + " must be an integer (got '" + text + "')");
  }
  return static_cast<int>(v);
}

int port_of(const std::string& text, const std::string& what) {
  const int port = parse_int(text, what);
  if (port < 1 || port > kMaxPort) {
    throw std::invalid_argument(what + " must be a port in 1-65535 (got '" + text + "')");
  }
  return port;
}
}  // namespace

std::string to_string(DistributedBackend b) {
  switch (b) {
    case DistributedBackend::kGloo: return "gloo";
    case DistributedBackend::kNccl: return "nccl";
    case DistributedBackend::kAuto: break;
  }
  return "auto";
}

DistributedSpec resolve_distributed_spec(const DistributedFlags& flags,
                                         const std::function<const char*(const char*)>& getenv_fn) {
  const auto env = [&](const char* name) -> std::optional<std::string> {
    const char* v = getenv_fn ? getenv_fn(name) : std::getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  // An integer from its flag, else from its variable; errors name whichever was used.
  const auto integer = [&](const std::optional<int>& flag, const char* var) -> std::optional<int> {
    if (flag) return flag;
    if (auto v = env(var)) return parse_int(*v, std::string("environment variable ") + var);
    return std::nullopt;
  };

  DistributedSpec s;
  const auto world = integer(flags.world_size, "WORLD_SIZE");
  const std::string world_src = flags.world_size ? "--world-size" : "environment variable WORLD_SIZE";
  if (world) {
    if (*world < 1) {
      throw std::invalid_argument(world_src + " must be at least 1 (got " +
                                  std::to_string(*world) + ")");
    }
    s.world_size = *world;
  }
  const auto rank = integer(flags.rank, "RANK");
  const std::string rank_src = flags.rank ? "--rank" : "environment variable RANK";
  if (rank) {
    if (*rank < 0 || *rank >= s.world_size) {
      throw std::invalid_argument(rank_src + " must be in [0, " + std::to_string(s.world_size) +
                                  ") for world size " + std::to_string(s.world_size) + " (got " +
                                  std::to_string(*rank) + ")");
    }
    s.rank = *rank;
  } else if (s.world_size > 1) {
    throw std::invalid_argument("world size " + std::to_string(s.world_size) +
                                " needs a rank: --rank R or environment variable RANK");
  }
  const auto local = integer(flags.local_rank, "LOCAL_RANK");
  if (local) {
    if (*local < 0) {
      throw std::invalid_argument(std::string(flags.local_rank ? "--local-rank"
                                                               : "environment variable LOCAL_RANK") +
                                  " must be at least 0 (got " + std::to_string(*local) + ")");
    }
    s.local_rank = *local;
  } else {
    s.local_rank = s.rank;  // one host: the local index is the rank
  }

  if (flags.backend) {
    const auto& b = *flags.backend;
    if (b == "auto") s.backend = DistributedBackend::kAuto;
    else if (b == "gloo") s.backend = DistributedBackend::kGloo;
    else if (b == "nccl") s.backend = DistributedBackend::kNccl;
    else throw std::invalid_argument("--dist-backend must be auto, gloo or nccl (got '" + b + "')");
  }
  if (flags.timeout_s) {
    if (!(*flags.timeout_s > 0)) {
      throw std::invalid_argument("--dist-timeout must be a positive number of seconds");
    }
    s.timeout = std::chrono::milliseconds(static_cast<int64_t>(*flags.timeout_s * 1000.0));
  }

  if (s.world_size == 1) return s;
  if (const auto agent = env("TORCHELASTIC_USE_AGENT_STORE"); agent && *agent == "True") {
    const auto attempt = env("TORCHELASTIC_RESTART_COUNT");
    s.agent_store_prefix = "/worker/attempt_" + (attempt ? *attempt : std::string("0"));
  }
  if (flags.master) {
    const auto& m = *flags.master;
    const auto colon = m.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      throw std::invalid_argument("--master must be ADDR:PORT (got '" + m + "')");
    }
    s.master_addr = m.substr(0, colon);
    s.master_port = port_of(m.substr(colon + 1), "--master's port");
  } else {
    const auto addr = env("MASTER_ADDR");
    const auto port = env("MASTER_PORT");
    if (!addr || addr->empty() || !port) {
      throw std::invalid_argument("world size " + std::to_string(s.world_size) +
                                  " needs rank 0's address: --master ADDR:PORT, or environment "
                                  "variables MASTER_ADDR and MASTER_PORT");
    }
    s.master_addr = *addr;
    s.master_port = port_of(*port, "environment variable MASTER_PORT");
  }
  return s;
}

}  // namespace hnclip
