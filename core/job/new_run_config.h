#pragma once
// A new run's configuration as it is recorded. Rank 0 records it so (TrainingJob), and a rank
// above 0 settles the flags it was given the same way before rank 0 compares the two
// (job/follower_request.h), so that "data/x" and "/home/u/data/x" are the same flag. Plain C++:
// any thread.

#include "train/train_config.h"

namespace hnclip {

// `config` with the files it names as absolute paths: the data root, --init (unless it is a word:
// pretrained, random), --vocab, --goal-segments and --structxlip-words. A run reads them again
// when it is resumed, evaluated, compared in the Retrieval tab or measured as an encoder, from
// whatever folder that command runs in; an experiment's slots are stored so too, so that a
// finished run is reused whichever folder either was started from.
TrainConfig with_absolute_paths(TrainConfig config);

// with_absolute_paths, and, where no logit scale was given, the framework's own starting one.
TrainConfig settled_new_run_config(TrainConfig config);

}  // namespace hnclip
