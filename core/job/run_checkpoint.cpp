#include "job/run_checkpoint.h"

#include <filesystem>
#include <optional>

#include "job/located_checkpoints.h"
#include "job/stored_best_epoch.h"
#include "text/decimal_digits.h"
#include "train/train_config.h"

namespace hnclip {

RunCheckpoint choose_run_checkpoint(const RunStore& store, const std::string& database, int64_t run_id,
                                    const std::string& which) {
  const auto run = store.find_run(run_id);
  if (!run) throw ConfigError("run " + std::to_string(run_id) + ": no such run in " + database);
  const auto checkpoints = located_checkpoints(store, run_id);
  if (checkpoints.empty()) {
    throw ConfigError("run " + std::to_string(run_id) + ": the run has no checkpoint yet");
  }
  std::optional<CheckpointRow> chosen;
  std::string note;
  if (which == "last") {
    chosen = checkpoints.back();
  } else if (which == "best") {
    const int best = best_stored_epoch(store, *run).epoch;
    for (const auto& c : checkpoints)
      if (c.epoch == best) chosen = c;
    if (!chosen) {
      chosen = checkpoints.back();
      note = "--epoch best: run " + std::to_string(run_id) +
             (best < 0 ? " has no evaluated fine-tuned epoch"
                       : "'s best epoch " + std::to_string(best) + " has no checkpoint") +
             "; taking its last checkpoint, epoch " + std::to_string(chosen->epoch);
    }
  } else {
    // Digits only: "2x" or "-1" is a typo, not epoch 2.
    if (!is_decimal_digits(which, kIntDigits))
      throw ConfigError("--epoch must be best, last or an epoch number (got '" + which + "')");
    const int epoch = std::stoi(which);
    std::string have;
    for (const auto& c : checkpoints) {
      if (c.epoch == epoch) chosen = c;
      have += (have.empty() ? "" : ", ") + std::to_string(c.epoch);
    }
    if (!chosen) {
      throw ConfigError("--epoch " + which + ": run " + std::to_string(run_id) +
                        " has no checkpoint for it (it has epochs " + have + ")");
    }
  }
  if (!std::filesystem::exists(chosen->path)) {
    throw ConfigError("checkpoint " + chosen->path + " of run " + std::to_string(run_id) + " is missing");
  }
  return {*run, *chosen, note};
}

}  // namespace hnclip
