#include "train/builtin_recipe.h"

#include <nlohmann/json.hpp>

namespace hnclip {
namespace {
constexpr const char* kBuiltinBenchmark = "synthetic";
}  // namespace

TrainConfig builtin_finetune_recipe() {
  TrainConfig c;
  c.benchmark = kBuiltinBenchmark;
  c.init = kPretrainedInit;
  c.loss_gamma = 0.5;
  c.loss_gbar = GbarMode::kRecomputed;
  c.logit_scale = 100;
  c.fixed_scale = true;
  c.lr = 5e-5;
  c.epochs = 10;
  return c;
}

std::string default_init_for(const TrainConfig& config) {
  return config.benchmark == kBuiltinBenchmark ? kPretrainedInit : "";
}

bool names_a_start(const nlohmann::json& config) {
  return config.contains("init") || config.contains("model");
}

std::string fill_default_init(nlohmann::json& config) {
  if (names_a_start(config)) {
    if (config.value("init", std::string()) == kRandomInit) config["init"] = "";
    return "";
  }
  TrainConfig on;  // TrainConfig's own benchmark where the keys name none
  on.benchmark = config.value("benchmark", on.benchmark);
  const std::string init = default_init_for(on);
  config["init"] = init;
  return init;
}

}  // namespace hnclip
