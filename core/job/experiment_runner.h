#pragma once
// Experiments as jobs: create_experiment stores a spec's grid (reusing finished runs with the same
// configuration), and ExperimentRunner trains what is still missing — one run after another, or
// `parallel` at a time — so the CLI and the window run experiments the same way.
// A killed experiment loses nothing: finished runs stay, the interrupted run resumes from its last
// checkpoint, and the empty slots are trained when the experiment is resumed.
// Ownership: the runner owns nothing but its id and paths; every worker thread opens its own
// RunStore. Threading: run() blocks on the calling thread; `stop` and the PauseGate may be set
// from any thread; the progress callback is called from worker threads, one call at a time.

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "experiment/experiment_spec.h"
#include "job/training_job.h"
#include "job/workbench_paths.h"
#include "train/pause_gate.h"

namespace hnclip {

struct ExperimentCreation {
  int64_t id = 0;
  int cells = 0;
  int runs = 0;
  int reused = 0;  // slots filled by finished runs that already existed
  std::string selection;
};

// Expands the spec (ConfigError naming the key or value it refuses, or the run count over
// kMaxRunsWithoutConfirmation without `confirmed`), matches finished runs of the same
// configuration, and stores experiment, cells and slots in one transaction. Nothing is stored
// when any of that fails. `log` gets one line per reused run.
ExperimentCreation create_experiment(const ExperimentSpec& spec, bool confirmed,
                                     const JobPaths& paths, JobLog log = {});

struct ExperimentProgress {
  int total = 0;     // slots
  int done = 0;      // slots with a finished run
  int failed = 0;    // slots whose run failed (left failed; resumable by hand)
  int running = 0;
  std::vector<std::string> current;  // "run 12 · HN γ 0.5 · s 100 fixed · seed 2 · step 40/620"
  // Seconds until every slot is done, from the step times measured so far in this process; NaN
  // before the first steps.
  double eta_seconds = std::numeric_limits<double>::quiet_NaN();
  std::string event;  // what just happened ("started run 12 …", "finished run 12 …"), or ""
};
using ExperimentProgressCallback = std::function<void(const ExperimentProgress&)>;

class ExperimentRunner {
 public:
  explicit ExperimentRunner(int64_t experiment_id, const JobPaths& paths, JobLog log = {});

  // Trains every slot without a finished run: empty slots get new runs, interrupted or stopped
  // runs resume, failed runs are left (reported). Returns the experiment's stored status at the
  // end: finished, incomplete (some runs failed), or cancelled (`stop` was set: the runs under
  // way stop after their current step and stay resumable). Throws StoreError for an unknown id,
  // and ConfigError when another live process is running the experiment.
  std::string run(const std::atomic<bool>& stop, PauseGate* pause = nullptr,
                  const ExperimentProgressCallback& progress = {});

 private:
  int64_t id_;
  JobPaths paths_;
  JobLog log_;
};

}  // namespace hnclip
