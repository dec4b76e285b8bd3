#pragma once
// An experiment as the window takes it from outside the dialog (the scripted --start-experiment
// option): an ExperimentSpec JSON (experiment/experiment_spec.h) whose `preset` supplies what it
// leaves out — the preset's recipe under the given base keys, its axes when none are given, its
// name — as `hnclip sweep --config FILE` merges a file with its preset. And the settling every
// base gets before it is expanded, the same in the dialog and the CLI. Plain values: any thread.

#include <nlohmann/json.hpp>

#include "widgets/experiments/experiment_spec_for_qt.h"

namespace hnclip::gui {

// Throws ConfigError naming the key the core refuses (or an unknown preset).
hnclip::ExperimentSpec experiment_spec_from_json(const nlohmann::json& j);

// As the CLI's sweep: the base names no run and no seed (the experiment does); a base that names
// no init or model starts where `train` would (train/builtin_recipe.h: the committed checkpoint
// on the built-in benchmark), "random" meaning from scratch; and a benchmark that releases a
// validation split (data/benchmark_registry.h) selects epochs on it unless the base names one.
void settle_experiment_base(hnclip::ExperimentSpec& spec);

}  // namespace hnclip::gui
