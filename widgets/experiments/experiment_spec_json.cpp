#include "widgets/experiments/experiment_spec_json.h"

#include "data/benchmark_registry.h"
#include "experiment/experiment_presets.h"
#include "train/builtin_recipe.h"

namespace hnclip::gui {

hnclip::ExperimentSpec experiment_spec_from_json(const nlohmann::json& j) {
  ExperimentSpec spec;
  from_json(j, spec);
  if (spec.preset.empty()) return spec;
  const ExperimentSpec preset = experiment_preset(spec.preset);
  // The given keys win over the preset's.
  nlohmann::json base = preset.base;
  for (const auto& [k, v] : spec.base.items()) base[k] = v;
  spec.base = base;
  if (spec.axes.empty()) spec.axes = preset.axes;
  if (spec.name.empty()) spec.name = preset.name;
  return spec;
}

void settle_experiment_base(hnclip::ExperimentSpec& spec) {
  spec.base.erase("name");
  spec.base.erase("seed");
  fill_default_init(spec.base);
  const bool has_val = spec.base.contains("val_split") && spec.base["val_split"].is_string() &&
                       !spec.base["val_split"].get<std::string>().empty();
  if (has_val) return;
  const auto benchmark = spec.base.value("benchmark", TrainConfig{}.benchmark);
  const std::string val = default_validation_split(benchmark);
  if (!val.empty()) spec.base["val_split"] = val;
}

}  // namespace hnclip::gui
