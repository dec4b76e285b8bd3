#pragma once
// ConfigDiff: two or more run configs (JSON objects) flattened into one row per key
// ("a.b" for nested objects) with one value per run, and whether the runs disagree on it.
// Plain C++ (no Qt): any thread.

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hnclip::gui {

struct ConfigDiffRow {
  std::string key;                                 // dotted path, e.g. "loss_gamma"
  std::vector<std::optional<std::string>> values;  // per run; nullopt = key absent in that run
  bool differs = false;                            // values are not all equal (absent counts)
  // Per run: its value is not run 0's (run 0 is the reference the others are read against).
  std::vector<bool> differs_from_first;
};

class ConfigDiff {
 public:
  // `labels[i]` names run i in errors. Throws std::invalid_argument naming the label when a
  // config is not a JSON object, or when the sizes of the two lists differ.
  ConfigDiff(const std::vector<std::string>& labels, const std::vector<std::string>& config_jsons);

  size_t runCount() const { return run_count_; }
  // Every key of any config, sorted by key.
  const std::vector<ConfigDiffRow>& rows() const { return rows_; }
  // Only the keys on which the runs differ, in the same order.
  std::vector<ConfigDiffRow> differingRows() const;

 private:
  size_t run_count_ = 0;
  std::vector<ConfigDiffRow> rows_;
};

}  // namespace hnclip::gui
