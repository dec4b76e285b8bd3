#pragma once
// The settings a run's configuration leaves unread: `peft_rank` without adapters, a framework's
// own settings with another framework, Ḡ's mode at γ = 0, the context length or vocabulary beside
// a checkpoint that brings its own tokenizer. Stored with a run, each reads as a setting it was
// trained with; in an experiment's axis, it makes identical runs. One table of rules for every
// place that takes settings: `train`'s and `sweep`'s flags (app/cli/flags_without_effect), an
// experiment file's keys and the New Experiment dialog's axes and base changes
// (config_key_without_effect_in_every), the workbench's --config (typed_key_without_effect).
// The Train tab greys the same fields out and launches them at their defaults
// (widgets/train: TrainConfigForm, TrainAdvancedFields), so a rule changed here changes there too.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/train_config.h"

namespace hnclip {

struct SettingRule {
  struct Setting {
    const char* flag;  // "--peft-rank"
    const char* key;   // its TrainConfig key, "peft_rank"
  };
  std::vector<Setting> settings;
  std::function<bool(const TrainConfig&)> used;  // whether a run of this configuration reads them
  const char* needs;                             // completes "<flag> has no effect <needs>"
};

// The rules, in the order their refusals are said.
const std::vector<SettingRule>& setting_rules();

// The first of `keys` (an experiment file's keys, its axes' keys) that every one of `configs`
// (the experiment's cells) leaves unread, as "config key 'peft_rank' (--peft-rank) has no effect
// without --peft lora or dora"; "" when each is read by some configuration.
std::string config_key_without_effect_in_every(const std::vector<std::string>& keys,
                                               const std::vector<TrainConfig>& configs);

// The keys of a typed configuration (a JSON object of TrainConfig keys: an experiment's base, the
// workbench's --config) given at a value other than the default: the ones a run would store as
// chosen. Empty for anything but an object.
std::vector<std::string> keys_off_their_defaults(const nlohmann::json& typed);

// The same for a typed configuration (the workbench's --config: a JSON object of TrainConfig
// keys) and `config`, the configuration it makes: the first key given at a value other than the
// default that `config` leaves unread; "" otherwise.
std::string typed_key_without_effect(const nlohmann::json& typed, const TrainConfig& config);

}  // namespace hnclip
