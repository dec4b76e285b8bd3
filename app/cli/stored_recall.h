#pragma once
// A run's stored recall, read back from the store: what `runs`, `show` and train's summary print
// about an epoch. One reading for all three, so the summary's "start" is `show`'s "start".

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace hnclip {
class RunStore;
}

namespace hnclip::cli {

// (epoch -> direction -> K -> recall) of one run's split: its test split everywhere, except the
// validation split's own list in `show` (a run evaluated with --val-split stores both).
using RecallTable = std::map<int, std::map<std::string, std::map<int, double>>>;
RecallTable recall_table(const RunStore& store, int64_t run, const std::string& split);

// {"t2i": {"R@1": .., ...}, "i2t": {...}} of one epoch, or null when the table has none.
nlohmann::json epoch_recall_json(const RecallTable& table, int epoch);

}  // namespace hnclip::cli
