#include "widgets/runs/config_diff.h"

#include <map>

#include <nlohmann/json.hpp>

namespace hnclip::gui {
namespace {
// Objects are walked into "parent.child" keys; arrays and scalars are leaves (an array of
// numbers reads better as one cell than as N rows).
void flatten(const nlohmann::json& j, const std::string& prefix,
             std::map<std::string, nlohmann::json>& out) {
  if (j.is_object() && !j.empty()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else {
    out[prefix] = j;
  }
}

// Strings without their JSON quotes: "synthetic", not "\"synthetic\"".
std::string cell_text(const nlohmann::json& j) {
  return j.is_string() ? j.get<std::string>() : j.dump();
}
}  // namespace

ConfigDiff::ConfigDiff(const std::vector<std::string>& labels,
                       const std::vector<std::string>& config_jsons)
    : run_count_(config_jsons.size()) {
  if (labels.size() != config_jsons.size())
    throw std::invalid_argument("ConfigDiff: " + std::to_string(labels.size()) + " labels for " +
                                std::to_string(config_jsons.size()) + " configs");
  std::vector<std::map<std::string, nlohmann::json>> flat(run_count_);
  std::map<std::string, bool> keys;
  for (size_t r = 0; r < run_count_; ++r) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(config_jsons[r]);
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument("config of " + labels[r] + " is not valid JSON: " + e.what());
    }
    if (!j.is_object())
      throw std::invalid_argument("config of " + labels[r] + " is not a JSON object");
    flatten(j, "", flat[r]);
    for (const auto& kv : flat[r]) keys[kv.first] = true;
  }
  for (const auto& kv : keys) {
    ConfigDiffRow row;
    row.key = kv.first;
    const nlohmann::json* first = nullptr;
    bool first_absent = false;
    for (size_t r = 0; r < run_count_; ++r) {
      const auto it = flat[r].find(row.key);
      const nlohmann::json* value = it == flat[r].end() ? nullptr : &it->second;
      row.values.push_back(value ? std::optional<std::string>(cell_text(*value)) : std::nullopt);
      // JSON equality, so 1 and 1.0 agree while "1" and 1 do not.
      if (r == 0) {
        first = value;
        first_absent = value == nullptr;
      }
      const bool differs =
          r > 0 && ((value == nullptr) != first_absent || (value && *value != *first));
      row.differs_from_first.push_back(differs);
      row.differs = row.differs || differs;
    }
    rows_.push_back(std::move(row));
  }
}

std::vector<ConfigDiffRow> ConfigDiff::differingRows() const {
  std::vector<ConfigDiffRow> out;
  for (const auto& row : rows_)
    if (row.differs) out.push_back(row);
  return out;
}

}  // namespace hnclip::gui
