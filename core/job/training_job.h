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

#include "job/workbench_paths.h"
#include "train/pause_gate.h"
#include "train/train_config.h"
#include "train/train_observer.h"
#include "train/train_result.h"

namespace hnclip {

using JobLog = std::function<void(const std::string&)>;

class TrainingJob {
 public:
  // A new run: validates the config (ConfigError naming the flag), opens the database
  // (StoreError naming the file), opens or generates the benchmark (DataError naming file and
  // line), builds tokenizer and model (CheckpointError for an --init that does not fit), and
  // records the run as `queued`. Nothing is written to the database before all of that succeeded.
  TrainingJob(const TrainConfig& config, const JobPaths& paths, JobLog log = {});
  // Continues an `interrupted` or `stopped` run under the same id from its last checkpoint; the
  // step metrics and evaluations after that checkpoint are dropped so the curves continue.
  static std::unique_ptr<TrainingJob> resume(int64_t run_id, const JobPaths& paths,
                                             JobLog log = {});
  ~TrainingJob();

  int64_t run_id() const;
  const TrainConfig& config() const;
  int64_t test_images() const;
  int64_t test_captions() const;

  // Trains to the end, a stop request, or a failure; the run's status is stored either way.
  // Exceptions (e.g. a disk full while writing a checkpoint) mark the run `failed` and rethrow.
  // `pause` (optional) is waited at before every step; paused time is not counted as training.
  TrainResult run(const std::atomic<bool>& stop, const std::vector<TrainObserver*>& observers = {},
                  PauseGate* pause = nullptr);

 private:
  struct Impl;
  explicit TrainingJob(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hnclip
