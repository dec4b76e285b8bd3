#include "train/run_test_set.h"

#include <exception>

#include "train/train_config.h"

namespace hnclip {

RunTestSet run_test_set(const TrainConfig& c) {
  RunTestSet s;
  s.split = c.test_split;
  // Where a generated benchmark is cached does not change what it holds: not part of the set.
  const std::string size = to_string(c.benchmark_size);
  const std::string seed = std::to_string(c.data_seed);
  if (c.benchmark == "synthetic") {
    s.key = "synthetic|" + size + "|" + seed + "|" + c.test_split;
    s.label = "synthetic " + size + " (seed " + seed + ") / " + c.test_split;
  } else {
    s.key = c.benchmark + "|" + c.benchmark_root + "|" + c.test_split;
    s.label = c.benchmark + " " + c.benchmark_root + " / " + c.test_split;
  }
  // Tested on the images it trained on: its recall measures fitting, not retrieval of unseen
  // images, so it is neither ranked against held-out runs nor shown without saying so.
  if (c.train_split == c.test_split) {
    s.key += "|trained on";
    s.label += " (also its training split)";
  }
  return s;
}

RunTestSet run_test_set(const std::string& config_json) {
  TrainConfig c;
  try {
    c = parse_train_config(config_json);
  } catch (const std::exception& e) {
    RunTestSet s;
    s.readable = false;
    s.key = "?" + config_json;
    s.label = std::string("configuration cannot be read: ") + e.what();
    s.split = c.test_split;
    return s;
  }
  return run_test_set(c);
}

}  // namespace hnclip
