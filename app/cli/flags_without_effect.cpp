#include "flags_without_effect.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "job/model_source.h"
#include "job/workbench_paths.h"
#include "train/builtin_recipe.h"

namespace hnclip::cli {

namespace {

struct Setting {
  const char* flag;
  const char* key;  // its TrainConfig key, as an experiment file names it
};

struct FlagRule {
  std::vector<Setting> settings;
  std::function<bool(const TrainConfig&)> used;
  const char* needs;  // completes "<flag> has no effect <needs>"
};

bool is(const TrainConfig& c, Framework f) { return c.framework == f; }

// The --init file, when there is one ("" trains from scratch).
std::string init_file(const TrainConfig& c) {
  return c.init == kRandomInit ? std::string() : resolve_init_checkpoint(c.init);
}

// The rules, in the order their refusals are said. The Train tab launches the same settings at
// their defaults (widgets/train: TrainConfigForm and TrainAdvancedFields), so a rule changed here
// changes there too.
const std::vector<FlagRule>& flag_rules() {
  static const std::vector<FlagRule> rules = {
      {{{"--peft-rank", "peft_rank"}, {"--alpha", "peft_alpha"}, {"--peft-towers", "peft_towers"}},
       [](const TrainConfig& c) { return c.peft != PeftMethod::kNone; },
       "without --peft lora or dora"},
      {{{"--longclip-pca", "longclip_pca_components"}},
       [](const TrainConfig& c) { return is(c, Framework::kLongClip); },
       "without --framework longclip"},
      {{{"--longclip-smoothing", "longclip_label_smoothing"}},
       [](const TrainConfig& c) {
         return is(c, Framework::kLongClip) || is(c, Framework::kDebias);
       },
       "without --framework longclip or debias"},
      {{{"--debias-keep", "debias_keep_ratio"}, {"--debias-pad", "debias_pad_tokens"}},
       [](const TrainConfig& c) { return is(c, Framework::kDebias); },
       "without --framework debias"},
      {{{"--finelip-margin", "finelip_margin"},
        {"--finelip-hardest", "finelip_hardest_negative"},
        {"--finelip-lr", "finelip_aggregation_lr"}},
       [](const TrainConfig& c) { return is(c, Framework::kFinelip); },
       "without --framework finelip"},
      {{{"--goal-crop-weight", "goal_crop_weight"}},
       [](const TrainConfig& c) { return is(c, Framework::kGoal); },
       "without --framework goal"},
      {{{"--goal-segments", "goal_segments"}},
       [](const TrainConfig& c) {
         return is(c, Framework::kGoal) ||
                (is(c, Framework::kStructxlip) && c.structxlip_local_weight > 0);
       },
       "without --framework goal, or structxlip with its local term (--structxlip-local-weight "
       "> 0)"},
      {{{"--structxlip-words", "structxlip_words"},
        {"--structxlip-structure-weight", "structxlip_structure_weight"},
        {"--structxlip-consistency-weight", "structxlip_consistency_weight"},
        {"--structxlip-local-weight", "structxlip_local_weight"},
        {"--structxlip-chunk-words", "structxlip_chunk_words"}},
       [](const TrainConfig& c) { return is(c, Framework::kStructxlip); },
       "without --framework structxlip"},
      // Ḡ feeds the margins only; plain InfoNCE computes none, and a run listed as "frozen" at
      // γ = 0 reads as a control it is not.
      {{{"--gbar", "loss_gbar"}},
       [](const TrainConfig& c) { return c.loss_gamma > 0; },
       "without --gamma > 0 (plain InfoNCE uses no Ḡ)"},
      // A checkpoint brings its own tokenizer and positions; the flag only sizes the word
      // tokenizer of a run from scratch, so the stored value would contradict the model.
      {{{"--context-length", "context_length"}},
       [](const TrainConfig& c) { return init_file(c).empty(); },
       "with an --init checkpoint, whose tokenizer has its own (it sizes the word tokenizer of "
       "--init random)"},
      // Only a CLIP model file is tokenized with a BPE vocabulary; a workbench checkpoint carries
      // its tokenizer, and a run from scratch builds one from its captions.
      {{{"--vocab", "vocab"}},
       [](const TrainConfig& c) {
         const std::string init = init_file(c);
         return !init.empty() && !is_workbench_model_file(init);
       },
       "without a CLIP model file as --init (a workbench checkpoint carries its tokenizer; a run "
       "from scratch builds one)"},
  };
  return rules;
}

// Every flag given to `cmd` that `config` leaves inert, with its sentence, in the rules' order.
std::vector<std::pair<std::string, std::string>> inert_flags(const CLI::App* cmd,
                                                             const TrainConfig& config) {
  std::vector<std::pair<std::string, std::string>> inert;
  for (const auto& rule : flag_rules()) {
    if (rule.used(config)) continue;
    for (const auto& [flag, key] : rule.settings) {
      const CLI::Option* opt = cmd->get_option(flag);
      if (opt->count() == 0) continue;
      // Given at its default it stores nothing a run without it would not: scripts that pass
      // `--gbar recomputed` for every γ stay accepted.
      if (!opt->get_default_str().empty() && opt->as<std::string>() == opt->get_default_str())
        continue;
      inert.emplace_back(flag, std::string(flag) + " has no effect " + rule.needs);
    }
  }
  return inert;
}

}  // namespace

std::string config_key_without_effect_in_every(const std::vector<std::string>& keys,
                                               const std::vector<TrainConfig>& configs) {
  for (const auto& rule : flag_rules()) {
    for (const auto& [flag, key] : rule.settings) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      if (std::none_of(configs.begin(), configs.end(), rule.used))
        return "config key '" + std::string(key) + "' (" + flag + ") has no effect " + rule.needs;
    }
  }
  return "";
}

std::string flag_without_effect(const CLI::App* cmd, const TrainConfig& config) {
  const auto inert = inert_flags(cmd, config);
  return inert.empty() ? "" : inert.front().second;
}

std::string flag_without_effect_in_every(const CLI::App* cmd,
                                         const std::vector<TrainConfig>& configs) {
  if (configs.empty()) return "";
  std::vector<std::set<std::string>> inert_in(configs.size());
  for (size_t i = 1; i < configs.size(); ++i)
    for (const auto& [flag, sentence] : inert_flags(cmd, configs[i])) inert_in[i].insert(flag);
  for (const auto& [flag, sentence] : inert_flags(cmd, configs.front())) {
    if (std::all_of(inert_in.begin() + 1, inert_in.end(),
                    [&](const auto& inert) { return inert.count(flag) > 0; }))
      return sentence;
  }
  return "";
}

}  // namespace hnclip::cli
