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

struct FlagRule {
  std::vector<const char*> flags;
  std::function<bool(const TrainConfig&)> used;
  const char* needs;  // completes "<flag> has no effect <needs>"
};

bool is(const TrainConfig& c, Framework f) { return c.framework == f; }

// The --init file, when there is one ("" trains from scratch).
std::string init_file(const TrainConfig& c) {
  return c.init == kRandomInit ? std::string() : resolve_init_checkpoint(c.init);
}

// Every flag given to `cmd` that `config` leaves inert, with its sentence, in the rules' order.
// The Train tab launches the same settings at their defaults (widgets/train: TrainConfigForm and
// TrainAdvancedFields), so a rule changed here changes there too.
std::vector<std::pair<std::string, std::string>> inert_flags(const CLI::App* cmd,
                                                             const TrainConfig& config) {
  static const std::vector<FlagRule> rules = {
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
      // Ḡ feeds the margins only; plain InfoNCE computes none, and a run listed as "frozen" at
      // γ = 0 reads as a control it is not.
      {{"--gbar"},
       [](const TrainConfig& c) { return c.loss_gamma > 0; },
       "without --gamma > 0 (plain InfoNCE uses no Ḡ)"},
      // A checkpoint brings its own tokenizer and positions; the flag only sizes the word
      // tokenizer of a run from scratch, so the stored value would contradict the model.
      {{"--context-length"},
       [](const TrainConfig& c) { return init_file(c).empty(); },
       "with an --init checkpoint, whose tokenizer has its own (it sizes the word tokenizer of "
       "--init random)"},
      // Only a CLIP model file is tokenized with a BPE vocabulary; a workbench checkpoint carries
      // its tokenizer, and a run from scratch builds one from its captions.
      {{"--vocab"},
       [](const TrainConfig& c) {
         const std::string init = init_file(c);
         return !init.empty() && !is_workbench_model_file(init);
       },
       "without a CLIP model file as --init (a workbench checkpoint carries its tokenizer; a run "
       "from scratch builds one)"},
  };
  std::vector<std::pair<std::string, std::string>> inert;
  for (const auto& rule : rules) {
    if (rule.used(config)) continue;
    for (const char* flag : rule.flags) {
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
