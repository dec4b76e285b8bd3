#include "train/builtin_recipe.h"

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

}  // namespace hnclip
