#pragma once
// A run's data as it recorded it (runs.data_summary_json: counts and a fingerprint per split)
// against the data the same path holds now. A manifest rewritten after a run (other captions,
// fewer images) still opens under the run's stored path, and evaluating or resuming the run on it
// would mix two data sets under one run: `eval` would replace an epoch's stored recall with a
// number on other data (and the best epoch be chosen across both), `resume` would train one run
// on two. Both are refused before anything is read or written; a transfer evaluation (another
// file) is how a run is measured on other data.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "store/run_store.h"

namespace hnclip {

// How the splits of `splits` differ between the run's summary and `now`: "its test split holds
// …; its train split …", or "" when they agree (or the run's summary cannot say).
std::string run_data_change(const RunRecord& run, const nlohmann::json& now,
                            const std::vector<std::string>& splits);

// Throws ConfigError naming the run, the data (`data_label`: benchmark_data_label), each split of
// `splits` that differs and how, and `consequence` (what was not done and what to do instead).
// Splits the run's summary does not describe are not compared (runs recorded before summaries; a
// summary without a fingerprint is compared by counts).
void refuse_changed_run_data(const RunRecord& run, const std::string& data_label,
                             const nlohmann::json& now, const std::vector<std::string>& splits,
                             const std::string& consequence);

}  // namespace hnclip
