#pragma once
// RunHistory: everything the plots show of a stored run, read in one go from the RunStore so a
// worker thread can load it (QtConcurrent) and hand the values to the GUI thread.

#include <cstdint>
#include <string>
#include <vector>

#include "store/run_store.h"

namespace hnclip::gui {

struct RunHistory {
  int64_t run_id = 0;
  std::string name;
  hnclip::RunStatus status = hnclip::RunStatus::Queued;
  std::string config_json;
  std::vector<hnclip::StepMetricRow> steps;
  std::vector<hnclip::ProbeRow> probes;
  std::vector<hnclip::EpochEvalRow> evals;  // the test split's (a validation split's left out)
};

// Opens its own connection (safe on any thread). Runs that do not exist are skipped; a database
// that cannot be opened throws hnclip::StoreError naming the file.
std::vector<RunHistory> load_run_histories(const std::string& database,
                                           const std::vector<int64_t>& runs);

}  // namespace hnclip::gui
