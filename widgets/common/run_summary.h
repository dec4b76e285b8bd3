#pragma once
// RunSummary: what the Runs tab shows of one run, read from the store in one go (record, the
// config fields the table has columns for, the starting and the best epoch's R@1 per direction,
// the solved fraction of the first and last trained epoch, every per-epoch recall row).
// load_run_summaries opens its own RunStore, so it may run on any thread (the GUI calls it on a
// QtConcurrent worker: the GUI thread never waits on SQLite).

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "job/stored_transfer_evaluations.h"
#include "store/run_store.h"
#include "train/run_test_set.h"

namespace hnclip::gui {

struct RunSummary {
  RunRecord record;
  // From the run's TrainConfig JSON; a key missing from the JSON keeps TrainConfig's default.
  std::string benchmark;
  // The fine-tuning framework and whether its global term has the margins, as the Runs tab's
  // Framework column shows it: "plain", "longclip", "debias (HN off)", ...
  std::string framework = "plain";
  double gamma = 0;
  std::string gbar;
  int epochs = 0;
  // What its recall was measured on; test_set.split is the split its best epoch and recall rows
  // are read from.
  RunTestSet test_set;
  bool config_readable = true;  // false: config_json did not parse (shown as "?")
  // R@1 (percent) of test_set.split at the best epoch, per direction; NaN = none.
  double best_r1_t2i = std::numeric_limits<double>::quiet_NaN();
  double best_r1_i2t = std::numeric_limits<double>::quiet_NaN();
  // R@1 (percent) of epoch 0, the starting checkpoint; NaN when it was not evaluated.
  double start_r1_t2i = std::numeric_limits<double>::quiet_NaN();
  double start_r1_i2t = std::numeric_limits<double>::quiet_NaN();
  // The epoch the recall table reports: the best fine-tuned epoch by the core's one rule
  // (train/best_epoch.h, what the CLI's best_epoch is), never epoch 0; -1 = none evaluated.
  int report_epoch = -1;
  // Fraction of every step of an epoch whose plain InfoNCE loss was below kSolvedLoss (1e-3), for
  // the first and the last epoch with recorded steps; NaN (epoch -1) when none are recorded.
  int solved_first_epoch = -1;
  double solved_first = std::numeric_limits<double>::quiet_NaN();
  int solved_last_epoch = -1;
  double solved_last = std::numeric_limits<double>::quiet_NaN();
  std::vector<EpochEvalRow> evals;  // every recall row, ordered by epoch, direction, k
  // Its evaluations on other data or splits (`hnclip eval --split`, `experiment eval`), in the
  // store's order; they never choose its best epoch.
  std::vector<TransferEvaluation> transfers;
  std::string checkpoint_dir;       // where the run's checkpoint files live

  // Recall in percent of (epoch, direction, k) on test_set.split; NaN when not stored.
  double recall(int epoch, const std::string& direction, int k) const;
};

// Field-wise equality (NaN equals NaN): tells a refresh which rows really changed.
bool operator==(const RunSummary& a, const RunSummary& b);
inline bool operator!=(const RunSummary& a, const RunSummary& b) { return !(a == b); }

// Builds a summary from a record, its evaluations, its per-epoch step loss counts (below
// kSolvedLoss) and its transfer evaluations' rows, without database access.
RunSummary make_run_summary(const RunRecord& record, std::vector<EpochEvalRow> evals,
                            const std::string& database_path,
                            const std::vector<EpochLossCount>& solved_steps = {},
                            const std::vector<TransferEvalRow>& transfer_rows = {});

// Every run of the database at `db_path`, newest first. Throws StoreError naming the file.
std::vector<RunSummary> load_run_summaries(const std::string& db_path);

}  // namespace hnclip::gui
