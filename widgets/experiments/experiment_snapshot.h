#pragma once
// What the Experiments tab shows, read from the store in one go: the experiment list with each
// experiment's progress (ExperimentListEntry), and one experiment's table (ExperimentSnapshot:
// the core's ExperimentResults plus every cell's configuration, which the plots need for their
// x axes). The load functions open their own RunStore, so they run on any thread (the tab calls
// them on its loader's pool: the GUI thread never waits on SQLite). Plain values.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/experiment_results.h"
#include "store/experiment_record.h"

namespace hnclip::gui {

struct ExperimentListEntry {
  ExperimentRecord record;
  int cells = 0;
  int runs_total = 0;     // slots
  int runs_finished = 0;  // slots whose run finished
  int runs_failed = 0;
  int runs_reused = 0;
  bool resumable() const;  // interrupted or cancelled (or incomplete): "Resume" applies
};

// Field-wise equality: tells a poll whether anything changed.
bool operator==(const ExperimentListEntry& a, const ExperimentListEntry& b);
inline bool operator!=(const ExperimentListEntry& a, const ExperimentListEntry& b) {
  return !(a == b);
}

struct ExperimentSnapshot {
  ExperimentResults results;
  // Per cell (by index): the TrainConfig JSON its slots train, without seed, name and threads.
  std::vector<nlohmann::json> cell_configs;
  // The config keys the experiment's axes vary, in the spec's order (what its charts are about).
  std::vector<std::string> axis_keys;
  // The cell's configuration value of `key` (null when the cell has none).
  nlohmann::json cellValue(int cell, const std::string& key) const;
};

// Every experiment, newest first; a running experiment whose process (on this host) died is
// marked interrupted first, as the CLI's `experiments` does. Throws StoreError naming the file.
std::vector<ExperimentListEntry> load_experiment_list(const std::string& db_path);

// One experiment's table. Throws StoreError naming the file or the missing experiment.
ExperimentSnapshot load_experiment_snapshot(const std::string& db_path, int64_t experiment_id);

}  // namespace hnclip::gui
