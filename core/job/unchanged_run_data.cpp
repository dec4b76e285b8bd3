#include "job/unchanged_run_data.h"

#include <nlohmann/json.hpp>

#include "data/benchmark_summary.h"
#include "train/train_config.h"

namespace hnclip {

std::string run_data_change(const RunRecord& run, const nlohmann::json& now,
                            const std::vector<std::string>& splits) {
  const auto stored = nlohmann::json::parse(run.data_summary_json, nullptr, /*exceptions=*/false);
  std::string differences;
  for (const auto& split : splits) {
    if (split.empty()) continue;
    const std::string d = split_difference(stored, now, split);
    if (d.empty()) continue;
    differences += (differences.empty() ? "" : "; ") + ("its " + split + " split " + d);
  }
  return differences;
}

void refuse_changed_run_data(const RunRecord& run, const std::string& data_label,
                             const nlohmann::json& now, const std::vector<std::string>& splits,
                             const std::string& consequence) {
  const std::string differences = run_data_change(run, now, splits);
  if (differences.empty()) return;
  throw ConfigError("run " + std::to_string(run.id) + " was trained and tested on " + data_label +
                    ", which has changed since: " + differences + ". " + consequence);
}

}  // namespace hnclip
