#include "job/new_run_config.h"

#include <filesystem>
#include <utility>

#include "train/builtin_recipe.h"
#include "train/framework.h"

namespace hnclip {

TrainConfig with_absolute_paths(TrainConfig config) {
  auto make_absolute = [](std::string& path) {
    if (!path.empty()) path = std::filesystem::absolute(path).lexically_normal().string();
  };
  for (auto* path :
       {&config.benchmark_root, &config.vocab, &config.goal_segments, &config.structxlip_words}) {
    make_absolute(*path);
  }
  if (config.init != kPretrainedInit && config.init != kRandomInit) make_absolute(config.init);
  return config;
}

TrainConfig settled_new_run_config(TrainConfig config) {
  config = with_absolute_paths(std::move(config));
  if (config.logit_scale == 0 && framework_start_logit_scale(config.framework) > 0)
    config.logit_scale = framework_start_logit_scale(config.framework);
  return config;
}

}  // namespace hnclip
