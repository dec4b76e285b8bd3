#pragma once
// What a rank above 0 of a data-parallel run was given on its own command line. Such a rank
// trains rank 0's run (TrainingJob::follow), so a run flag given to it alone (`--gamma 0` on rank
// 1 beside `--gamma 0.5` on rank 0, a forgotten `--seed`) was dropped without a word. Every rank
// above 0 publishes its request at the rendezvous, and rank 0 checks them all before it records
// anything: one that disagrees refuses the run, naming the rank and each key that differs, and
// the refusal ends every rank at once. A rank given no run flags (the workbench's own ranks)
// follows whatever rank 0 runs. Plain values and pure functions: any thread.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "train/train_config.h"

namespace hnclip {

struct FollowerRequest {
  bool configured = false;  // run-configuration flags were given; `config` holds them
  TrainConfig config;       // over the defaults, settled as rank 0 settles its own
  int64_t resume = 0;       // --resume ID; 0 when none was given
};

// The rendezvous store's key under which rank `rank` publishes its request.
std::string follower_request_key(int rank);

std::string follower_request_text(const FollowerRequest& request);
// Throws ConfigError naming the rank when the text is not a request.
FollowerRequest parse_follower_request(int rank, const std::string& text);

// "" when rank `rank`'s request agrees with what rank 0 runs: the new run `new_run` (settled),
// or, when new_run is null, the stored run `resumed_run`, whose configuration cannot change.
// Otherwise the refusal, e.g. "rank 1 was given another run configuration than rank 0:
// loss_gamma 0.0 (rank 0: 0.5). …". The keys compared are all of a TrainConfig's except the
// process group's backend, which rank 0 resolves after this check.
std::string follower_disagreement(int rank, const FollowerRequest& request,
                                  const TrainConfig* new_run, int64_t resumed_run);

}  // namespace hnclip
