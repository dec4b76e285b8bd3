#include "widgets/experiments/experiment_snapshot.h"

#include <algorithm>

#include "store/host_process.h"
#include "store/run_store.h"

namespace hnclip::gui {

bool ExperimentListEntry::resumable() const {
  // Failed runs stay failed on a resume (the runner leaves them), so `incomplete` is not offered.
  return record.status == kExperimentInterrupted || record.status == kExperimentCancelled ||
         record.status == kExperimentPending;
}

bool operator==(const ExperimentListEntry& a, const ExperimentListEntry& b) {
  const auto& x = a.record;
  const auto& y = b.record;
  return x.id == y.id && x.name == y.name && x.status == y.status &&
         x.status_message == y.status_message && x.created_at_ms == y.created_at_ms &&
         x.finished_at_ms == y.finished_at_ms && a.cells == b.cells &&
         a.runs_total == b.runs_total && a.runs_finished == b.runs_finished &&
         a.runs_failed == b.runs_failed && a.runs_reused == b.runs_reused;
}

nlohmann::json ExperimentSnapshot::cellValue(int cell, const std::string& key) const {
  if (cell < 0 || cell >= static_cast<int>(cell_configs.size())) return nullptr;
  const auto& c = cell_configs[static_cast<size_t>(cell)];
  const auto it = c.find(key);
  return it == c.end() ? nlohmann::json(nullptr) : *it;
}

std::vector<ExperimentListEntry> load_experiment_list(const std::string& db_path) {
  RunStore store(db_path);
  auto experiments = store.list_experiments();
  // The list is polled: only a running experiment whose process is gone is worth a write
  // (mark_dead_experiments_interrupted takes the database's write lock, even for nothing).
  const std::string host = current_host_name();
  const bool dead = std::any_of(experiments.begin(), experiments.end(), [&](const auto& e) {
    return e.status == kExperimentRunning && e.host == host && e.pid > 0 && !process_exists(e.pid);
  });
  if (dead && store.mark_dead_experiments_interrupted() > 0) experiments = store.list_experiments();
  std::vector<ExperimentListEntry> out;
  for (const auto& e : experiments) {
    ExperimentListEntry entry;
    entry.record = e;
    entry.cells = static_cast<int>(store.experiment_cells(e.id).size());
    for (const auto& slot : store.experiment_slots(e.id)) {
      ++entry.runs_total;
      entry.runs_reused += slot.reused;
      if (slot.run_id == 0) continue;
      const auto run = store.find_run(slot.run_id);
      if (!run) continue;
      entry.runs_finished += run->status == RunStatus::Finished;
      entry.runs_failed += run->status == RunStatus::Failed;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

ExperimentSnapshot load_experiment_snapshot(const std::string& db_path, int64_t experiment_id) {
  const RunStore store(db_path);
  ExperimentSnapshot out;
  out.results = experiment_results(store, experiment_id);
  const auto spec = nlohmann::json::parse(out.results.experiment.spec_json, nullptr, false);
  if (spec.is_object() && spec.contains("axes") && spec["axes"].is_array()) {
    for (const auto& axis : spec["axes"]) {
      if (axis.is_object() && axis.contains("key") && axis["key"].is_string())
        out.axis_keys.push_back(axis["key"].get<std::string>());
    }
  }
  out.cell_configs.resize(out.results.cells.size(), nlohmann::json::object());
  std::vector<bool> seen(out.cell_configs.size(), false);
  for (const auto& slot : store.experiment_slots(experiment_id)) {
    if (slot.cell < 0 || slot.cell >= static_cast<int>(seen.size()) || seen[slot.cell]) continue;
    seen[slot.cell] = true;
    auto config = nlohmann::json::parse(slot.config_json, nullptr, false);
    if (config.is_discarded() || !config.is_object()) continue;
    for (const char* key : {"seed", "name", "threads"}) config.erase(key);
    out.cell_configs[slot.cell] = std::move(config);
  }
  return out;
}

}  // namespace hnclip::gui
