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
};

// `which`: "best" (the run's best epoch, else its last), "last", or an epoch number. Throws
// ConfigError naming --run / --epoch for an unknown run, a run without checkpoints, an epoch
// without one or a bad --epoch value, and naming the file when the checkpoint file is missing.
RunCheckpoint choose_run_checkpoint(const RunStore& store, const std::string& database, int64_t run_id,
                                    const std::string& which);

}  // namespace hnclip
