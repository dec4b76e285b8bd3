#pragma once
// A stored run's TrainConfig, read back from its config JSON. Every reader that needs the whole
// config (resume, eval, retrieval, the rank count of a distributed resume) goes through here, so
// a config this version cannot read (written by another version, or edited by hand) is refused
// with the run's number in the message instead of a bare "config key 'epochs' …" that does not
// say whose config it was. Listings (`runs`, `show`) catch it and show the run anyway.

#include "store/run_store.h"
#include "train/train_config.h"

namespace hnclip {

// Throws ConfigError "run N: its stored configuration cannot be read: <why>".
TrainConfig stored_run_config(const RunRecord& run);

}  // namespace hnclip
