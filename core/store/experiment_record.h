#pragma once
// The rows of an experiment (schema v7): the experiment, its cells (one configuration of the grid
// each, with its role) and its slots (cell × seed: the exact run config and the run that fills
// it). Plain values; RunStore reads and writes them (store/experiment_store.cpp).

#include <cstdint>
#include <string>

namespace hnclip {

// Stored words of ExperimentRecord::status.
constexpr const char* kExperimentPending = "pending";      // created, nothing trained yet
constexpr const char* kExperimentRunning = "running";      // a process is working on it (pid/host)
constexpr const char* kExperimentFinished = "finished";    // every slot holds a finished run
constexpr const char* kExperimentCancelled = "cancelled";  // stopped by the user; resumable
constexpr const char* kExperimentInterrupted = "interrupted";  // its process died; resumable
constexpr const char* kExperimentIncomplete = "incomplete";    // ran to the end, some runs failed

struct ExperimentRecord {
  int64_t id = 0;
  std::string name;
  std::string spec_json = "{}";  // the ExperimentSpec it was made from (experiment/experiment_spec.h)
  std::string status = kExperimentPending;
  std::string status_message;
  int64_t created_at_ms = 0;  // create_experiment stores "now" for 0
  int64_t finished_at_ms = 0;
  int64_t pid = 0;  // the process working on it while `running`
  std::string host;
};

struct ExperimentCellRow {
  int cell = 0;               // 0-based, the expansion's order
  std::string label;          // e.g. "γ 0.5 · s 100 fixed"
  std::string role;           // experiment/experiment_spec.h: method, baseline, paired, ...
  std::string settings_json;  // the config keys that define the cell, as a JSON object
};

struct ExperimentSlotRow {
  int cell = 0;
  int64_t seed = 0;
  std::string config_json;  // the full TrainConfig this slot trains
  int64_t run_id = 0;       // 0 = no run yet (or its run was deleted)
  bool reused = false;      // filled by a run that existed before the experiment
};

}  // namespace hnclip
