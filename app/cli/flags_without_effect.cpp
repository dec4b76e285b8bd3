#include "flags_without_effect.h"

#include <functional>
#include <vector>

namespace hnclip::cli {

namespace {

struct FlagRule {
  std::vector<const char*> flags;
  std::function<bool(const TrainConfig&)> used;
  const char* needs;  // completes "<flag> has no effect <needs>"
};

bool is(const TrainConfig& c, Framework f) { return c.framework == f; }

}  // namespace

std::string flag_without_effect(const CLI::App* cmd, const TrainConfig& config) {
  const std::vector<FlagRule> rules = {
      {{"--peft-rank", "--alpha", "--peft-towers"},
       [](const TrainConfig& c) { return c.peft != PeftMethod::kNone; },
       "without --peft lora or dora"},
      {{"--longclip-pca"},
       [](const TrainConfig& c) { return is(c, Framework::kLongClip); },
       "without --framework longclip"},
      {{"--longclip-smoothing"},
       [](const TrainConfig& c) {
         return is(c, Framework::kLongClip) || is(c, Framework::kDebias);
       },
       "without --framework longclip or debias"},
      {{"--debias-keep", "--debias-pad"},
       [](const TrainConfig& c) { return is(c, Framework::kDebias); },
       "without --framework debias"},
      {{"--finelip-margin", "--finelip-hardest", "--finelip-lr"},
       [](const TrainConfig& c) { return is(c, Framework::kFinelip); },
       "without --framework finelip"},
      {{"--goal-crop-weight"},
       [](const TrainConfig& c) { return is(c, Framework::kGoal); },
       "without --framework goal"},
      {{"--goal-segments"},
       [](const TrainConfig& c) {
         return is(c, Framework::kGoal) ||
                (is(c, Framework::kStructxlip) && c.structxlip_local_weight > 0);
       },
       "without --framework goal, or structxlip with its local term (--structxlip-local-weight "
       "> 0)"},
      {{"--structxlip-words", "--structxlip-structure-weight", "--structxlip-consistency-weight",
        "--structxlip-local-weight", "--structxlip-chunk-words"},
       [](const TrainConfig& c) { return is(c, Framework::kStructxlip); },
       "without --framework structxlip"},
  };
  for (const auto& rule : rules) {
    if (rule.used(config)) continue;
    for (const char* flag : rule.flags) {
      if (cmd->count(flag) > 0) return std::string(flag) + " has no effect " + rule.needs;
    }
  }
  return "";
}

}  // namespace hnclip::cli
