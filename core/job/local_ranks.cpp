#include "job/local_ranks.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "distributed/distributed_spec.h"
#include "distributed/loopback_port.h"
#include "distributed/process_group.h"
#include "job/stored_run_config.h"
#include "store/run_store.h"
#include "train/train_config.h"

extern char** environ;

namespace hnclip {

namespace {
namespace fs = std::filesystem;

std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

fs::path fresh_log_dir() {
  static std::atomic<int> counter{0};
  auto dir = fs::temp_directory_path() /
             ("hnclip-ranks-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(dir);
  return dir;
}
}  // namespace

LocalRanks::LocalRanks(int world_size, const std::string& program, const JobPaths& paths,
                       std::chrono::milliseconds timeout)
    : world_size_(world_size) {
  if (world_size < 2) {
    throw ConfigError("a local data-parallel run needs at least 2 processes (got " +
                      std::to_string(world_size) + ")");
  }
  if (program.empty() || ::access(program.c_str(), X_OK) != 0) {
    throw ConfigError("a data-parallel run starts its other ranks as the hnclip program, and '" +
                      program + "' is not an executable file");
  }
  const int port = free_loopback_port();
  const std::string master = "127.0.0.1:" + std::to_string(port);
  const auto dir = fresh_log_dir();
  const std::string seconds =
      std::to_string(static_cast<double>(timeout.count()) / 1000.0);
  try {
    for (int rank = 1; rank < world_size; ++rank) {
      // The followers need only where to meet and where the data is: the run itself (config,
      // starting point) is rank 0's, published once it is recorded.
      std::vector<std::string> args{program,          "train",
                                    "--world-size",   std::to_string(world_size),
                                    "--rank",         std::to_string(rank),
                                    "--master",       master,
                                    "--dist-timeout", seconds,
                                    "--db",           paths.database,
                                    "--cache-dir",    paths.cache_dir};
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      const auto log = (dir / ("rank-" + std::to_string(rank) + ".log")).string();
      logs_.push_back(log);
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
      posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
      pid_t pid = 0;
      const int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
      posix_spawn_file_actions_destroy(&actions);
      if (rc != 0) {
        throw DistributedError("cannot start rank " + std::to_string(rank) + " (" + program +
                               "): " + std::strerror(rc));
      }
      pids_.push_back(pid);
      exit_codes_.push_back(-1);
    }
    DistributedSpec spec;
    spec.world_size = world_size;
    spec.rank = 0;
    spec.master_addr = "127.0.0.1";
    spec.master_port = port;
    spec.backend = DistributedBackend::kAuto;
    spec.timeout = timeout;
    group_ = std::make_shared<ProcessGroup>(spec);
  } catch (...) {
    for (const int pid : pids_) ::kill(pid, SIGKILL);
    finish(std::chrono::seconds(5));
    throw;
  }
}

std::vector<std::string> LocalRanks::finish(std::chrono::milliseconds grace) {
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (size_t i = 0; i < pids_.size(); ++i) {
    while (pids_[i] != 0) {
      int status = 0;
      const pid_t done = ::waitpid(pids_[i], &status, WNOHANG);
      if (done == pids_[i] || done < 0) {
        exit_codes_[i] = done < 0                ? -1
                         : WIFEXITED(status)     ? WEXITSTATUS(status)
                         : WIFSIGNALED(status)   ? 128 + WTERMSIG(status)
                                                 : -1;
        pids_[i] = 0;
      } else if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pids_[i], SIGKILL);  // reaped on the next pass
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
  std::vector<std::string> reports;
  for (size_t i = 0; i < logs_.size(); ++i) {
    auto line = last_line(logs_[i]);
    if (line.empty()) line = "rank " + std::to_string(i + 1) + ": wrote nothing";
    // 130 is `hnclip train`'s exit after a stop, which its last line already says.
    constexpr int kExitStopped = 130;
    if (exit_codes_[i] != 0 && exit_codes_[i] != kExitStopped)
      line += " (exit " + std::to_string(exit_codes_[i]) + ")";
    reports.push_back(line);
  }
  return reports;
}

LocalRanks::~LocalRanks() {
  try {
    finish(std::chrono::seconds(10));
    if (!logs_.empty()) fs::remove_all(fs::path(logs_.front()).parent_path());
  } catch (...) {
    // Nothing left to report from a destructor; the children are reaped or killed either way.
  }
}

int stored_world_size(const std::string& database, int64_t run_id) {
  const RunStore store(database);
  const auto run = store.find_run(run_id);
  if (!run) throw ConfigError("run " + std::to_string(run_id) + " is not in " + database);
  return stored_run_config(*run).world_size;
}

}  // namespace hnclip
