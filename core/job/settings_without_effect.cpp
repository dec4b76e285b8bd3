#include "job/settings_without_effect.h"

#include <algorithm>

#include "job/model_source.h"
#include "job/workbench_paths.h"
#include "train/builtin_recipe.h"

namespace hnclip {

namespace {

bool is(const TrainConfig& c, Framework f) { return c.framework == f; }

// The --init file, when there is one ("" trains from scratch).
std::string init_file(const TrainConfig& c) {
  return c.init == kRandomInit ? std::string() : resolve_init_checkpoint(c.init);
}

}  // namespace

const std::vector<SettingRule>& setting_rules() {
  static const std::vector<SettingRule> rules = {
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

std::string config_key_without_effect_in_every(const std::vector<std::string>& keys,
                                               const std::vector<TrainConfig>& configs) {
  for (const auto& rule : setting_rules()) {
    for (const auto& [flag, key] : rule.settings) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      if (std::none_of(configs.begin(), configs.end(), rule.used))
        return "config key '" + std::string(key) + "' (" + flag + ") has no effect " + rule.needs;
    }
  }
  return "";
}

std::vector<std::string> keys_off_their_defaults(const nlohmann::json& typed) {
  std::vector<std::string> keys;
  if (!typed.is_object()) return keys;
  const nlohmann::json defaults = TrainConfig{};
  for (const auto& [k, v] : typed.items())
    if (!defaults.contains(k) || defaults[k] != v) keys.push_back(k);
  return keys;
}

std::string typed_key_without_effect(const nlohmann::json& typed, const TrainConfig& config) {
  return config_key_without_effect_in_every(keys_off_their_defaults(typed), {config});
}

}  // namespace hnclip
