#pragma once
// Evaluation of a stored run's checkpoint (`hnclip eval`): rebuilds the run's test split and model
// from its stored config, loads the chosen checkpoint, ranks both directions and stores the result
// as that epoch's evaluation (replacing an earlier one for the same epoch).

#include <cstdint>
#include <functional>
#include <string>

#include "job/training_job.h"
#include "train/train_events.h"

namespace hnclip {

struct StoredEvaluation {
  int64_t run_id = 0;
  std::string checkpoint;
  EvalEvent eval;           // epoch and step of the checkpoint
  int64_t test_images = 0;
  int64_t test_captions = 0;
};

// `which`: "best" (the run's best epoch, else its last), "last", or an epoch number. Throws
// ConfigError for an unknown run or a missing checkpoint, naming them.
StoredEvaluation evaluate_stored_run(int64_t run_id, const std::string& which, const JobPaths& paths,
                                     const JobLog& log = {});

}  // namespace hnclip
