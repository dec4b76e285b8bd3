#pragma once
// Which checkpoint of a stored run a command means (`--run ID --epoch best|last|N`), shared by
// `hnclip eval` and `hnclip export` so both pick the same file for the same flags.

#include <cstdint>
#include <string>

#include "store/run_store.h"

namespace hnclip {

struct RunCheckpoint {
  RunRecord run;
  CheckpointRow checkpoint;
  // Non-empty when the checkpoint is not quite what was asked for ("best" of a run with no
  // evaluated fine-tuned epoch that has a checkpoint: its last); callers print it.
  std::string note;
  // Epoch 0 asked for, which has no checkpoint of its own: the run's starting model. Its
  // checkpoint.path is the run's --init file ("" for the random weights of its seed); callers build
  // it with build_run_assets and load no checkpoint weights.
  bool start_model = false;
};

// `which`: "best" (the run's best epoch, else its last, with a note), "last", or an epoch number
// (digits only). Throws ConfigError naming --run / --epoch for an unknown run, a run without
// checkpoints, a bad --epoch value or an epoch without one (listing the epochs that have one), and
// naming the file when the checkpoint file is missing. "0" is the run's starting model (see
// RunCheckpoint::start_model), with a note saying so, also for a run without checkpoints yet.
RunCheckpoint choose_run_checkpoint(const RunStore& store, const std::string& database, int64_t run_id,
                                    const std::string& which);

}  // namespace hnclip
