#include "widgets/common/run_summary.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "job/stored_best_epoch.h"
#include "job/stored_run_test_set.h"
#include "job/workbench_paths.h"
#include "train/probe_summary.h"
#include "train/train_config.h"

namespace hnclip::gui {
namespace {

bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

bool same_record(const RunRecord& a, const RunRecord& b) {
  return a.id == b.id && a.name == b.name && a.status == b.status &&
         a.status_message == b.status_message && a.config_json == b.config_json &&
         a.device == b.device && a.git_rev == b.git_rev && a.created_at_ms == b.created_at_ms &&
         a.started_at_ms == b.started_at_ms && a.finished_at_ms == b.finished_at_ms &&
         a.pid == b.pid && a.host == b.host && a.best_epoch == b.best_epoch && a.tags == b.tags &&
         a.data_summary_json == b.data_summary_json;
}

bool same_eval(const EpochEvalRow& a, const EpochEvalRow& b) {
  return a.epoch == b.epoch && a.step == b.step && a.split == b.split &&
         a.direction == b.direction && a.k == b.k && same_double(a.recall, b.recall);
}
}  // namespace

double RunSummary::recall(int epoch, const std::string& direction, int k) const {
  for (const auto& e : evals)
    if (e.epoch == epoch && e.split == test_set.split && e.direction == direction && e.k == k)
      return e.recall;
  return std::numeric_limits<double>::quiet_NaN();
}

bool operator==(const RunSummary& a, const RunSummary& b) {
  if (!same_record(a.record, b.record) || a.benchmark != b.benchmark ||
      a.framework != b.framework || !same_double(a.gamma, b.gamma) || a.gbar != b.gbar ||
      a.epochs != b.epochs || a.test_set.key != b.test_set.key ||
      a.test_set.label != b.test_set.label || a.config_readable != b.config_readable ||
      !same_double(a.best_r1_t2i, b.best_r1_t2i) || !same_double(a.best_r1_i2t, b.best_r1_i2t) ||
      !same_double(a.start_r1_t2i, b.start_r1_t2i) ||
      !same_double(a.start_r1_i2t, b.start_r1_i2t) ||
      a.solved_first_epoch != b.solved_first_epoch ||
      !same_double(a.solved_first, b.solved_first) || a.solved_last_epoch != b.solved_last_epoch ||
      !same_double(a.solved_last, b.solved_last) || a.report_epoch != b.report_epoch ||
      a.checkpoint_dir != b.checkpoint_dir || a.evals.size() != b.evals.size() ||
      a.transfers != b.transfers)
    return false;
  for (size_t i = 0; i < a.evals.size(); ++i)
    if (!same_eval(a.evals[i], b.evals[i])) return false;
  return true;
}

RunSummary make_run_summary(const RunRecord& record, std::vector<EpochEvalRow> evals,
                            const std::string& database_path,
                            const std::vector<EpochLossCount>& solved_steps,
                            const std::vector<TransferEvalRow>& transfer_rows) {
  RunSummary s;
  s.record = record;
  s.evals = std::move(evals);
  s.checkpoint_dir = run_checkpoint_dir(database_path, record.id);

  // A config the TrainConfig cannot read (another version's, mistyped) must still list, with
  // TrainConfig's defaults, not fail the whole table.
  TrainConfig config;
  try {
    config = parse_train_config(record.config_json);
  } catch (const ConfigError&) {
    s.config_readable = false;
  }
  s.benchmark = config.benchmark;
  s.framework = to_string(config.framework) + (config.hn ? "" : " (HN off)");
  s.gamma = config.loss_gamma;
  s.gbar = to_string(gbar_in_effect(config));
  s.epochs = config.epochs;
  s.test_set = stored_run_test_set(record);
  s.transfers = group_transfer_evaluations(transfer_rows, s.config_readable ? &config : nullptr);

  const StoredBestEpoch best = best_stored_epoch(s.evals, s.test_set.split);
  s.report_epoch = best.epoch;
  s.best_r1_t2i = best.r1_t2i;
  s.best_r1_i2t = best.r1_i2t;
  s.start_r1_t2i = best.start_r1_t2i;
  s.start_r1_i2t = best.start_r1_i2t;

  auto fraction = [](const EpochLossCount& c) {
    return static_cast<double>(c.below) / static_cast<double>(c.steps);
  };
  if (!solved_steps.empty()) {
    s.solved_first_epoch = solved_steps.front().epoch;
    s.solved_first = fraction(solved_steps.front());
    s.solved_last_epoch = solved_steps.back().epoch;
    s.solved_last = fraction(solved_steps.back());
  }
  return s;
}

std::vector<RunSummary> load_run_summaries(const std::string& db_path) {
  RunStore store(db_path);
  // A run whose process died (killed, crashed, power cut) still says `running`: show it as
  // `interrupted`, which the run list offers to resume. Runs of live processes are left alone.
  store.mark_dead_runs_interrupted();
  std::vector<RunSummary> out;
  for (const auto& record : store.list_runs())
    out.push_back(make_run_summary(record, store.epoch_evals(record.id), db_path,
                                   store.step_loss_counts(record.id, kSolvedLoss),
                                   store.transfer_evals(record.id)));
  return out;
}

}  // namespace hnclip::gui
