#include "job/new_run_config.h"

#include <filesystem>

#include "train/framework.h"

namespace hnclip {

TrainConfig settled_new_run_config(TrainConfig config) {
  for (auto* path : {&config.benchmark_root, &config.goal_segments, &config.structxlip_words}) {
    if (!path->empty()) *path = std::filesystem::absolute(*path).lexically_normal().string();
  }
  if (config.logit_scale == 0 && framework_start_logit_scale(config.framework) > 0)
    config.logit_scale = framework_start_logit_scale(config.framework);
  return config;
}

}  // namespace hnclip
