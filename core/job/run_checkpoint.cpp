#include "job/run_checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "job/located_checkpoints.h"
#include "job/stored_best_epoch.h"
#include "job/stored_run_config.h"
#include "job/workbench_paths.h"
#include "text/decimal_digits.h"
#include "train/best_epoch.h"
#include "train/train_config.h"

namespace hnclip {

RunCheckpoint choose_run_checkpoint(const RunStore& store, const std::string& database, int64_t run_id,
                                    const std::string& which) {
  const auto run = store.find_run(run_id);
  if (!run) throw ConfigError("run " + std::to_string(run_id) + ": no such run in " + database);
  const auto checkpoints = located_checkpoints(store, run_id);
  // Epoch 0 is where the run started: evaluated (its "start" row) but never saved, since its
  // weights are the --init file's or its seed's. Asked for, it is that starting model.
  if (is_decimal_digits(which, kIntDigits) && std::stoi(which) == kStartEpoch &&
      std::none_of(checkpoints.begin(), checkpoints.end(),
                   [](const CheckpointRow& c) { return c.epoch == kStartEpoch; })) {
    RunCheckpoint start{*run, {}, "", true};
    start.checkpoint.epoch = kStartEpoch;
    const TrainConfig config = stored_run_config(*run);
    start.checkpoint.path = resolve_init_checkpoint(config.init);
    start.note = "--epoch 0: run " + std::to_string(run_id) + "'s starting model, " +
                 (start.checkpoint.path.empty()
                      ? "the random weights of its seed " + std::to_string(config.seed)
                      : "its --init " + start.checkpoint.path);
    return start;
  }
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
