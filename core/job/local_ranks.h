#pragma once
// LocalRanks: a data-parallel run of N processes on this machine, started from a process that is
// rank 0 itself (the workbench's training thread). It starts ranks 1..N-1 as `hnclip train`
// processes that follow rank 0's published run (TrainingJob::follow: they take its configuration
// and write nothing), serves the rendezvous for them on a free loopback port, and reaps them
// afterwards. What each of them reported (its throughput) is read back from its log.
// Ownership: owns the child processes and the process group; the TrainingJob given group() must
// be destroyed first. Threading: one thread (the one that runs the job).

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "job/workbench_paths.h"

namespace hnclip {

class ProcessGroup;

class LocalRanks {
 public:
  // `program`: the hnclip executable. Throws ConfigError for world_size < 2 or a program that is
  // not an executable file (naming it); DistributedError when a child cannot be started or the
  // rendezvous fails (the children started are killed first).
  LocalRanks(int world_size, const std::string& program, const JobPaths& paths,
             std::chrono::milliseconds timeout);
  ~LocalRanks();  // waits for the children; kills any still alive after a grace period
  LocalRanks(const LocalRanks&) = delete;
  LocalRanks& operator=(const LocalRanks&) = delete;

  std::shared_ptr<ProcessGroup> group() const { return group_; }
  int world_size() const { return world_size_; }
  // Waits (up to `grace`) for every child to exit and returns, per rank above 0, "rank R: " and
  // the last line of its log (its status and images/s), with its exit status when that was a
  // failure.
  std::vector<std::string> finish(std::chrono::milliseconds grace = std::chrono::seconds(30));

 private:
  int world_size_;
  std::shared_ptr<ProcessGroup> group_;
  std::vector<int> pids_;           // rank r at index r - 1; 0 once reaped
  std::vector<int> exit_codes_;
  std::vector<std::string> logs_;  // each child's stderr
};

// The world size a stored run was trained with (1 for runs from before data-parallel training).
// Throws ConfigError when the run does not exist, StoreError when the database cannot be read.
int stored_world_size(const std::string& database, int64_t run_id);

}  // namespace hnclip
