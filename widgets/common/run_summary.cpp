#include "widgets/common/run_summary.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "job/workbench_paths.h"
#include "train/train_config.h"

namespace hnclip::gui {
namespace {
const char* const kTestSplit = "test";  // the split the Runs tab reports

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
    if (e.epoch == epoch && e.split == kTestSplit && e.direction == direction && e.k == k)
      return e.recall;
  return std::numeric_limits<double>::quiet_NaN();
}

bool operator==(const RunSummary& a, const RunSummary& b) {
  if (!same_record(a.record, b.record) || a.benchmark != b.benchmark ||
      !same_double(a.gamma, b.gamma) || a.gbar != b.gbar || a.epochs != b.epochs ||
      a.config_readable != b.config_readable || !same_double(a.best_r1_t2i, b.best_r1_t2i) ||
      !same_double(a.best_r1_i2t, b.best_r1_i2t) || a.report_epoch != b.report_epoch ||
      a.checkpoint_dir != b.checkpoint_dir || a.evals.size() != b.evals.size())
    return false;
  for (size_t i = 0; i < a.evals.size(); ++i)
    if (!same_eval(a.evals[i], b.evals[i])) return false;
  return true;
}

RunSummary make_run_summary(const RunRecord& record, std::vector<EpochEvalRow> evals,
                            const std::string& database_path) {
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
  s.gamma = config.loss_gamma;
  s.gbar = to_string(config.loss_gbar);
  s.epochs = config.epochs;

  // Best R@1 per direction, and the epoch whose mean R@1 is best (the fallback report epoch).
  std::vector<int> epochs;
  for (const auto& e : s.evals) {
    if (e.split != kTestSplit || e.k != 1 || (e.direction != "t2i" && e.direction != "i2t"))
      continue;
    double& best = e.direction == "t2i" ? s.best_r1_t2i : s.best_r1_i2t;
    if (std::isnan(best) || e.recall > best) best = e.recall;
    if (epochs.empty() || epochs.back() != e.epoch) epochs.push_back(e.epoch);
  }
  double best_mean = -1;
  for (int epoch : epochs) {
    const double t = s.recall(epoch, "t2i", 1), i = s.recall(epoch, "i2t", 1);
    const double mean = std::isnan(t) ? i : std::isnan(i) ? t : (t + i) / 2;
    if (!std::isnan(mean) && mean > best_mean) {
      best_mean = mean;
      s.report_epoch = epoch;
    }
  }
  // The trainer's own choice of best epoch wins when it was evaluated.
  if (record.best_epoch >= 0)
    for (int epoch : epochs)
      if (epoch == record.best_epoch) s.report_epoch = epoch;
  return s;
}

std::vector<RunSummary> load_run_summaries(const std::string& db_path) {
  RunStore store(db_path);
  // A run whose process died (killed, crashed, power cut) still says `running`: show it as
  // `interrupted`, which the run list offers to resume. Runs of live processes are left alone.
  store.mark_dead_runs_interrupted();
  std::vector<RunSummary> out;
  for (const auto& record : store.list_runs())
    out.push_back(make_run_summary(record, store.epoch_evals(record.id), db_path));
  return out;
}

}  // namespace hnclip::gui
