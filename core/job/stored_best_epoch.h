#pragma once
// A stored run's best epoch and its starting score, read from its epoch_evals rows of its own
// test split with the core's one selection rule (train/best_epoch.h). The CLI's `runs`, `show`
// and --epoch best, the resume path and every GUI table call this, so they cannot disagree; the
// runs.best_epoch column (written live while training) is not read back, because a database
// written before a change of the rule keeps its old answer there. Plain values: any thread.

#include <limits>
#include <string>
#include <vector>

#include "store/run_store.h"

namespace hnclip {

struct StoredBestEpoch {
  int epoch = -1;                                            // -1: no fine-tuned epoch evaluated
  double score = std::numeric_limits<double>::quiet_NaN();   // mean R@1, percent
  double r1_t2i = std::numeric_limits<double>::quiet_NaN();  // at `epoch`, percent
  double r1_i2t = std::numeric_limits<double>::quiet_NaN();
  // Epoch 0 (the starting checkpoint), NaN when it was not evaluated.
  double start_r1_t2i = std::numeric_limits<double>::quiet_NaN();
  double start_r1_i2t = std::numeric_limits<double>::quiet_NaN();
};

// Over the R@1 rows of `test_split` (the run's TrainConfig::test_split: a run trained with
// --test-split val chose its best on "val") of epochs <= `last_epoch` (every epoch by default).
StoredBestEpoch best_stored_epoch(const std::vector<EpochEvalRow>& evals,
                                  const std::string& test_split,
                                  int last_epoch = std::numeric_limits<int>::max());

// The same for a stored run, on the test split its stored config names (TrainConfig's default
// when the config does not say or cannot be read: listing a run never fails on its config).
StoredBestEpoch best_stored_epoch(const RunStore& store, const RunRecord& run);

}  // namespace hnclip
