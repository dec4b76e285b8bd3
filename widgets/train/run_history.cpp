#include "widgets/train/run_history.h"

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
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace hnclip::gui
