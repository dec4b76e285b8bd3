#include "job/stored_run_config.h"

#include <string>

namespace hnclip {

TrainConfig stored_run_config(const RunRecord& run) {
  try {
    return parse_train_config(run.config_json);
  } catch (const ConfigError& e) {
    throw ConfigError("run " + std::to_string(run.id) +
                      ": its stored configuration cannot be read: " + e.what());
  }
}

}  // namespace hnclip
