#include "job/stored_best_epoch.h"

#include <map>
#include <utility>

#include "train/best_epoch.h"
#include "train/train_config.h"

namespace hnclip {

StoredBestEpoch best_stored_epoch(const std::vector<EpochEvalRow>& evals,
                                  const std::string& test_split, int last_epoch) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  // Per epoch, ascending (so ties keep the earlier one): (t2i R@1, i2t R@1).
  std::map<int, std::pair<double, double>> r1;
  for (const auto& e : evals) {
    if (e.split != test_split || e.k != 1 || e.epoch > last_epoch) continue;
    auto [it, added] = r1.try_emplace(e.epoch, kNaN, kNaN);
    if (e.direction == "t2i") it->second.first = e.recall;
    if (e.direction == "i2t") it->second.second = e.recall;
  }
  StoredBestEpoch out;
  BestEpochSelector best;
  for (const auto& [epoch, r] : r1) {
    if (epoch == kStartEpoch) {
      out.start_r1_t2i = r.first;
      out.start_r1_i2t = r.second;
    }
    if (best.offer(epoch, best_epoch_score(r.first, r.second))) {
      out.epoch = epoch;
      out.score = best.score();
      out.r1_t2i = r.first;
      out.r1_i2t = r.second;
    }
  }
  return out;
}

StoredBestEpoch best_stored_epoch(const RunStore& store, const RunRecord& run) {
  TrainConfig config;
  try {
    config = parse_train_config(run.config_json);
  } catch (const ConfigError&) {
    // Another version's or a mistyped config: TrainConfig's default split.
  }
  return best_stored_epoch(store.epoch_evals(run.id), config.test_split);
}

}  // namespace hnclip
