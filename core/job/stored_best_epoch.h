#pragma once
// A stored run's best epoch and its starting score, read from its epoch_evals rows with the
// core's one selection rule (train/best_epoch.h). The CLI's `runs`, the resume path and every GUI
// table call this, so they cannot disagree. Plain values: any thread.

#include <limits>
#include <vector>

#include "store/run_store.h"

namespace hnclip {

constexpr const char* kReportedSplit = "test";  // the split best epochs are chosen on

struct StoredBestEpoch {
  int epoch = -1;                                            // -1: no fine-tuned epoch evaluated
  double score = std::numeric_limits<double>::quiet_NaN();   // mean R@1, percent
  double r1_t2i = std::numeric_limits<double>::quiet_NaN();  // at `epoch`, percent
  double r1_i2t = std::numeric_limits<double>::quiet_NaN();
  // Epoch 0 (the starting checkpoint), NaN when it was not evaluated.
  double start_r1_t2i = std::numeric_limits<double>::quiet_NaN();
  double start_r1_i2t = std::numeric_limits<double>::quiet_NaN();
};

// Over the test split's R@1 rows of epochs <= `last_epoch` (every epoch by default).
StoredBestEpoch best_stored_epoch(const std::vector<EpochEvalRow>& evals,
                                  int last_epoch = std::numeric_limits<int>::max());

}  // namespace hnclip
