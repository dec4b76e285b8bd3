#include "job/run_checkpoint.h"

#include <filesystem>
#include <optional>

#include "job/stored_best_epoch.h"
#include "train/train_config.h"

namespace hnclip {

RunCheckpoint choose_run_checkpoint(const RunStore& store, const std::string& database, int64_t run_id,
                                    const std::string& which) {
  const auto run = store.find_run(run_id);
  if (!run) throw ConfigError("--run " + std::to_string(run_id) + ": no such run in " + database);
  const auto checkpoints = store.checkpoints(run_id);
  if (checkpoints.empty()) {
    throw ConfigError("--run " + std::to_string(run_id) + ": the run has no checkpoint yet");
  }
  std::optional<CheckpointRow> chosen;
  if (which == "last") {
    chosen = checkpoints.back();
  } else if (which == "best") {
    chosen = checkpoints.back();
    const int best = best_stored_epoch(store, *run).epoch;
    for (const auto& c : checkpoints)
      if (c.epoch == best) chosen = c;
  } else {
    int epoch = -1;
    try {
      epoch = std::stoi(which);
    } catch (const std::exception&) {
      throw ConfigError("--epoch must be best, last or an epoch number (got '" + which + "')");
    }
    for (const auto& c : checkpoints)
      if (c.epoch == epoch) chosen = c;
    if (!chosen) throw ConfigError("--epoch " + which + ": run " + std::to_string(run_id) + " has no checkpoint for it");
  }
  if (!std::filesystem::exists(chosen->path)) {
    throw ConfigError("checkpoint " + chosen->path + " of run " + std::to_string(run_id) + " is missing");
  }
  return {*run, *chosen};
}

}  // namespace hnclip
