#include "flags_without_effect.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "job/settings_without_effect.h"

namespace hnclip::cli {

namespace {

// Every flag given to `cmd` that `config` leaves inert, with its sentence, in the rules' order.
std::vector<std::pair<std::string, std::string>> inert_flags(const CLI::App* cmd,
                                                             const TrainConfig& config) {
  std::vector<std::pair<std::string, std::string>> inert;
  for (const auto& rule : setting_rules()) {
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
