#pragma once
// RunTestSet: the data a run's recall was measured on — the benchmark with its size and data seed
// (built-in) or its root (a data set on disk), and the test split — read from the run's stored
// config. Runs are comparable only on the same test set: the Retrieval tab refuses other pairs,
// the Runs tab and experiment tables mark no best across sets, and `hnclip runs` / `show` say
// which set. Plain values: any thread.

#include <string>

namespace hnclip {

struct RunTestSet {
  // Equal exactly for runs evaluated on the same split (benchmark, size, seed, root, split).
  std::string key;
  // for people: "synthetic small (seed 1) / test"; "… / all (also its training split)" for a run
  // tested on the split it trained on (a key of its own: not comparable with held-out runs).
  std::string label;
  // The test split's name; TrainConfig's default when the config cannot be read.
  std::string split;
  bool readable = true;  // false: the run's config did not parse (label says why)
};

struct TrainConfig;

RunTestSet run_test_set(const TrainConfig& config);
// From a stored config's JSON. Never throws: an unreadable config gives readable = false and a key
// of its own.
RunTestSet run_test_set(const std::string& config_json);

}  // namespace hnclip
