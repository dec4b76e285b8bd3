#include "job/stored_run_test_set.h"

#include <cstdint>
#include <exception>

#include <nlohmann/json.hpp>

#include "data/benchmark_summary.h"

namespace hnclip {

RunTestSet stored_run_test_set(const TrainConfig& config, const std::string& data_summary_json) {
  RunTestSet set = run_test_set(config);
  if (config.train_split == config.test_split) return set;  // labelled so already
  const auto summary = nlohmann::json::parse(data_summary_json, nullptr, /*exceptions=*/false);
  const int64_t shared = shared_image_count(summary, config.test_split, config.train_split);
  if (shared == 0) return set;
  const int64_t images = split_image_count(summary, config.test_split);
  set.key += "|" + std::to_string(shared) + " trained on";
  set.label += " (" + std::to_string(shared) +
               (images > 0 ? " of " + std::to_string(images) : std::string()) +
               " images trained on)";
  return set;
}

RunTestSet stored_run_test_set(const RunRecord& run) {
  TrainConfig config;
  try {
    config = parse_train_config(run.config_json);
  } catch (const std::exception&) {
    return run_test_set(run.config_json);  // readable = false, and why
  }
  return stored_run_test_set(config, run.data_summary_json);
}

}  // namespace hnclip
