#include "widgets/train/run_history.h"

#include <algorithm>

#include "train/train_config.h"

namespace hnclip::gui {

std::vector<RunHistory> load_run_histories(const std::string& database,
                                           const std::vector<int64_t>& runs) {
  hnclip::RunStore store(database);
  std::vector<RunHistory> out;
  for (const int64_t id : runs) {
    const auto record = store.find_run(id);
    if (!record) continue;
    RunHistory h;
    h.run_id = id;
    h.name = record->name;
    h.status = record->status;
    h.config_json = record->config_json;
    h.steps = store.step_metrics(id);
    h.probes = store.probes(id);
    h.evals = store.epoch_evals(id);
    // The recall plot follows the test split: a validation split's rows (--val-split) stay out.
    std::string val_split;
    try {
      val_split = hnclip::parse_train_config(h.config_json).val_split;
    } catch (const hnclip::ConfigError&) {
      // An unreadable config has no validation split to leave out.
    }
    if (!val_split.empty()) {
      const auto is_val = [&](const hnclip::EpochEvalRow& e) { return e.split == val_split; };
      h.evals.erase(std::remove_if(h.evals.begin(), h.evals.end(), is_val), h.evals.end());
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace hnclip::gui
