#include "widgets/experiments/experiment_preview.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "job/settings_without_effect.h"
#include "store/run_store.h"

namespace hnclip::gui {
namespace {

// The newest finished runs of the same benchmark and model looked at for the speed: enough for a
// stable median, few enough that the dialog's preview stays a handful of queries.
constexpr size_t kMaxMeasuredRuns = 20;
constexpr double kMsPerSecond = 1000.0;

// What decides a run's cost per training image besides its recipe: the data (image count and
// size) and the model and where it runs.
nlohmann::json cost_context(const TrainConfig& c) {
  const nlohmann::json j = c;
  nlohmann::json out = nlohmann::json::object();
  for (const char* key : {"benchmark", "benchmark_size", "benchmark_root", "train_split",
                          "data_seed", "model", "init", "device", "peft"}) {
    if (j.contains(key)) out[key] = j[key];
  }
  return out;
}

// Training images of one full epoch of the split (before data_fraction) and the seconds one
// image took, evaluation and checkpoints included, from a finished run; false when unknown.
bool measure_run(const RunStore& store, const RunRecord& run, const TrainConfig& c,
                 double* images_per_epoch, double* seconds_per_image) {
  if (run.started_at_ms <= 0 || run.finished_at_ms <= run.started_at_ms) return false;
  const auto checkpoints = store.checkpoints(run.id);
  if (checkpoints.empty() || c.epochs <= 0 || c.data_fraction <= 0) return false;
  const double steps = static_cast<double>(checkpoints.back().step);
  if (steps <= 0) return false;
  const double images = steps * static_cast<double>(c.batch_size);
  *images_per_epoch = images / (c.epochs * c.data_fraction);
  *seconds_per_image =
      static_cast<double>(run.finished_at_ms - run.started_at_ms) / kMsPerSecond / images;
  return true;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

}  // namespace

ExperimentPreview preview_experiment(const ExperimentSpec& spec, bool confirmed,
                                     const std::string& db_path) {
  ExperimentPreview out;
  ExperimentPlan plan;
  try {
    plan = expand_experiment(spec, confirmed);
  } catch (const ConfigError& e) {
    out.error = e.what();
    // The one refusal a click can lift: ask again with the count, as the CLI's --yes does.
    if (!confirmed) {
      try {
        plan = expand_experiment(spec, true);
        out.needs_confirmation = true;
      } catch (const ConfigError&) {
        return out;
      }
    } else {
      return out;
    }
  }
  // A key the experiment sets or varies that none of its runs reads (an axis over FineLIP's
  // margin with the plain framework): stored unread in every run, an axis of identical runs.
  // `hnclip sweep` refuses the same.
  std::vector<std::string> keys = keys_off_their_defaults(spec.base);
  for (const auto& axis : spec.axes) keys.push_back(axis.key);
  std::vector<TrainConfig> configs;
  for (const auto& cell : plan.cells) configs.push_back(cell.config);
  if (const std::string inert = config_key_without_effect_in_every(keys, configs); !inert.empty()) {
    out = ExperimentPreview{};
    out.error = inert + " in any of the experiment's " + std::to_string(configs.size()) +
                " configurations: leave it out, or add what it needs";
    return out;
  }
  out.cells = static_cast<int>(plan.cells.size());
  out.runs = static_cast<int>(plan.slots.size());
  out.seeds = out.cells > 0 ? out.runs / out.cells : 0;
  out.selection = plan.selection;

  const RunStore store(db_path);
  std::set<std::string> finished;
  std::vector<std::pair<RunRecord, TrainConfig>> candidates;  // newest first
  for (const auto& run : store.list_runs()) {
    if (run.status != RunStatus::Finished) continue;
    try {
      TrainConfig c = parse_train_config(run.config_json);
      finished.insert(comparable_config(c).dump());
      candidates.emplace_back(run, std::move(c));
    } catch (const ConfigError&) {
      // A run this version cannot read is neither reused nor measured.
    }
  }
  std::vector<const ExperimentSlot*> to_train;
  for (const auto& slot : plan.slots) {
    if (finished.count(comparable_config(slot.config).dump()))
      ++out.reused;
    else
      to_train.push_back(&slot);
  }
  if (to_train.empty()) {
    out.estimated_seconds = 0;
    return out;
  }
  // The speed of the base's data and model. Cells that change the data or model (an axis over
  // the benchmark or init) are estimated at that same speed: a rough figure, said as such.
  const nlohmann::json wanted = cost_context(plan.slots.front().config);
  std::vector<double> images, seconds;
  for (const auto& [run, config] : candidates) {
    if (images.size() >= kMaxMeasuredRuns) break;
    if (cost_context(config) != wanted) continue;
    double per_epoch = 0, per_image = 0;
    if (!measure_run(store, run, config, &per_epoch, &per_image)) continue;
    images.push_back(per_epoch);
    seconds.push_back(per_image);
  }
  out.measured_runs = static_cast<int>(images.size());
  if (images.empty()) return out;
  out.seconds_per_image = median(seconds);
  const double images_per_epoch = median(images);
  double total = 0;
  for (const ExperimentSlot* slot : to_train) {
    total +=
        slot->config.epochs * slot->config.data_fraction * images_per_epoch * out.seconds_per_image;
  }
  out.estimated_seconds = total;
  return out;
}

}  // namespace hnclip::gui
