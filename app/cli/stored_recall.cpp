#include "stored_recall.h"

#include "store/run_store.h"

namespace hnclip::cli {

RecallTable recall_table(const RunStore& store, int64_t run, const std::string& split) {
  RecallTable t;
  for (const auto& e : store.epoch_evals(run)) {
    if (e.split == split) t[e.epoch][e.direction][e.k] = e.recall;
  }
  return t;
}

nlohmann::json epoch_recall_json(const RecallTable& table, int epoch) {
  const auto it = table.find(epoch);
  if (it == table.end()) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [direction, ks] : it->second) {
    for (const auto& [k, v] : ks) out[direction]["R@" + std::to_string(k)] = v;
  }
  return out;
}

}  // namespace hnclip::cli
