#pragma once
// TrainingJob: one fine-tuning run from a TrainConfig to a finished record in the RunStore. It
// joins what the layers below keep apart — benchmark reading (data/), tokenizer and model
// (text/, model/), the trainer (train/) and the database (store/) — so the CLI and the GUI's
// TrainingController start, stop and resume runs the same way.
// Ownership: owns its data, model and database connection. Threading: construct on any thread,
// then call run() once, on one thread (it blocks); `stop` may be set from any other thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "job/follower_request.h"
#include "job/workbench_paths.h"
#include "train/pause_gate.h"
#include "train/train_config.h"
#include "train/train_observer.h"
#include "train/train_result.h"

namespace hnclip {

class ProcessGroup;

using JobLog = std::function<void(const std::string&)>;

class TrainingJob {
 public:
  // A new run: validates the config (ConfigError naming the flag), opens the database
  // (StoreError naming the file), opens or generates the benchmark (DataError naming file and
  // line), builds tokenizer and model (CheckpointError for an --init that does not fit), and
  // records the run as `queued`. Nothing is written to the database before all of that succeeded.
  //
  // Data-parallel (`group`, rank 0 of config.world_size): this process checks what every other
  // rank asked for (job/follower_request.h; ConfigError naming the rank and the keys), records
  // the run and, once it is recorded, publishes its configuration and starting point to the
  // other ranks (follow()) — or the error that refused it, so that they stop at once. The
  // record's config says the world size and the backend.
  TrainingJob(const TrainConfig& config, const JobPaths& paths, JobLog log = {},
              std::shared_ptr<ProcessGroup> group = nullptr);
  // Continues an `interrupted` or `stopped` run under the same id from its last checkpoint; the
  // step metrics and evaluations after that checkpoint are dropped so the curves continue. A run
  // trained by N processes resumes with N (ConfigError otherwise: its batches and the global
  // batch's shards depend on N).
  static std::unique_ptr<TrainingJob> resume(int64_t run_id, const JobPaths& paths,
                                             JobLog log = {},
                                             std::shared_ptr<ProcessGroup> group = nullptr);
  // Ranks above 0 of a data-parallel run: waits for rank 0's published run (up to the group's
  // timeout) and trains its shard of it. Writes nothing to the database; a resumed run's
  // checkpoint is read from the path rank 0 names (one host, or a shared file system).
  // It first publishes `request`, what it was given itself, which rank 0 checks before it records
  // the run (job/follower_request.h); rank 0's refusal ends it with ConfigError.
  static std::unique_ptr<TrainingJob> follow(std::shared_ptr<ProcessGroup> group,
                                             const JobPaths& paths, JobLog log = {},
                                             const FollowerRequest& request = {});
  ~TrainingJob();

  int64_t run_id() const;
  const TrainConfig& config() const;
  int64_t test_images() const;
  int64_t test_captions() const;

  // Trains to the end, a stop request, or a failure; the run's status is stored either way.
  // Exceptions (e.g. a disk full while writing a checkpoint) mark the run `failed` and rethrow —
  // a DistributedError (another rank died or timed out) marks it `interrupted`: resumable.
  // `pause` (optional) is waited at before every step; paused time is not counted as training.
  TrainResult run(const std::atomic<bool>& stop, const std::vector<TrainObserver*>& observers = {},
                  PauseGate* pause = nullptr);

 private:
  struct Impl;
  explicit TrainingJob(std::unique_ptr<Impl> impl);
  void construct(const TrainConfig& config, const JobPaths& paths, JobLog log,
                 const std::shared_ptr<ProcessGroup>& group);
  static std::unique_ptr<TrainingJob> resume_recorded(int64_t run_id, const JobPaths& paths,
                                                      JobLog log,
                                                      const std::shared_ptr<ProcessGroup>& group);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hnclip
