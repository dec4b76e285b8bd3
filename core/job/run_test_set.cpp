#include "job/run_test_set.h"

#include <exception>

#include "job/run_benchmark_spec.h"
#include "train/train_config.h"

namespace hnclip {

RunTestSet run_test_set(const std::string& config_json) {
  RunTestSet s;
  TrainConfig c;
  try {
    c = parse_train_config(config_json);
  } catch (const std::exception& e) {
    s.readable = false;
    s.key = "?" + config_json;
    s.label = std::string("configuration cannot be read: ") + e.what();
    s.split = c.test_split;
    return s;
  }
  // Where generated benchmarks are cached does not change what they hold: no cache folder here.
  const BenchmarkSpec spec = run_benchmark_spec(c, /*cache_dir=*/"");
  s.split = c.test_split;
  if (spec.name == "synthetic") {
    s.key = "synthetic|" + spec.size + "|" + std::to_string(spec.seed) + "|" + c.test_split;
    s.label =
        "synthetic " + spec.size + " (seed " + std::to_string(spec.seed) + ") / " + c.test_split;
  } else {
    s.key = spec.name + "|" + spec.root + "|" + c.test_split;
    s.label = spec.name + " " + spec.root + " / " + c.test_split;
  }
  return s;
}

}  // namespace hnclip
