#pragma once
// A new run's configuration as it is recorded. Rank 0 records it so (TrainingJob), and a rank
// above 0 settles the flags it was given the same way before rank 0 compares the two
// (job/follower_request.h), so that "data/x" and "/home/u/data/x" are the same flag. Plain C++:
// any thread.

#include "train/train_config.h"

namespace hnclip {

// `config` with the paths it names made absolute (a resume from another working directory finds
// the same files) and, where no logit scale was given, the framework's own starting one.
TrainConfig settled_new_run_config(TrainConfig config);

}  // namespace hnclip
