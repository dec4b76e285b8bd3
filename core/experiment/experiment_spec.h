#pragma once
// ExperimentSpec: a grid of fine-tuning runs — a base TrainConfig, axes over any of its keys and
// the seeds — and its expansion into cells (one configuration each) and slots (cell × seed).
// The paper's evidence is such grids (γ sweeps, recomputed vs frozen Ḡ, sample efficiency), and a
// margin's gain means nothing without its controls, so the expansion adds them by default: for
// every configuration with γ > 0, plain InfoNCE (γ = 0) with everything else equal, with a learnt
// scale, and at a grid of fixed scales — a temperature alone can explain a margin's gain. Plain
// values (no LibTorch, no store): any thread.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/train_config.h"

namespace hnclip {

// More runs than this need an explicit yes (`--yes`): a typo in an axis should not start days of
// training.
constexpr int kMaxRunsWithoutConfirmation = 200;

// Roles of a cell. A γ = 0 cell is a control of the γ > 0 cells that share its context (every key
// but γ, Ḡ and the scale): `paired` when its scale setting equals one of theirs, else
// `learnable-scale` or `fixed-scale`; a γ = 0 cell without γ > 0 cells beside it is a `baseline`.
constexpr const char* kRoleMethod = "method";
constexpr const char* kRoleBaseline = "baseline";
constexpr const char* kRolePaired = "paired";
constexpr const char* kRoleLearnableScale = "learnable-scale";
constexpr const char* kRoleFixedScale = "fixed-scale";
bool is_control_role(const std::string& role);

// How a run's epoch is chosen for the tables: `val` the best fine-tuned epoch on the validation
// split, `last` the last epoch, `test` the best on the test split (optimistic: it peeks), `auto`
// val when the base config names a validation split, else last.
constexpr const char* kSelectAuto = "auto";
constexpr const char* kSelectVal = "val";
constexpr const char* kSelectLast = "last";
constexpr const char* kSelectTest = "test";

struct ExperimentAxis {
  std::string key;  // a TrainConfig key as stored in a run's config JSON, e.g. "loss_gamma"
  std::vector<nlohmann::json> values;
};

struct ExperimentSpec {
  std::string name;
  std::string preset;                              // "" or the preset it was made from
  nlohmann::json base = nlohmann::json::object();  // TrainConfig JSON; a missing key = default
  std::vector<ExperimentAxis> axes;
  std::vector<uint64_t> seeds{1, 2, 3};
  bool controls = true;                             // false: --no-controls, and reports say so
  std::vector<double> control_scales{10, 20, 50, 100};  // fixed scales of the controls
  // Runs at a time, the base's threads split between them. 2: on the 2-core CPU machines this
  // was measured on, two one-thread runs finished a pair of runs 1.9x sooner than one two-thread
  // run after the other (tests/bench/experiment_parallel.sh; README).
  int parallel = 2;
  std::string selection = kSelectAuto;
};

void to_json(nlohmann::json& j, const ExperimentSpec& s);
// Throws ConfigError naming the key that is missing, mistyped or refused.
void from_json(const nlohmann::json& j, ExperimentSpec& s);

struct ExperimentCell {
  int index = 0;
  std::string label;  // "HN γ 0.5 · s 100 fixed · data_fraction 0.2"
  std::string role;
  nlohmann::json settings = nlohmann::json::object();  // the keys that set this cell apart
  TrainConfig config;                                   // base + settings (seed not yet set)
};

struct ExperimentSlot {
  int cell = 0;
  uint64_t seed = 0;
  TrainConfig config;  // the exact run: the cell's config with this seed and its run name
};

struct ExperimentPlan {
  std::vector<ExperimentCell> cells;  // the axes' product in order, then the added controls
  std::vector<ExperimentSlot> slots;  // cell-major, seeds in the spec's order
  std::string selection;              // the resolved rule: val, last or test
};

// Expands and validates a spec. Throws ConfigError naming the axis key or value the core refuses
// (unknown key, wrong type, a value TrainConfig::validate refuses, an empty axis or seed list,
// a key given twice), and when the grid holds more than kMaxRunsWithoutConfirmation runs and
// `confirmed` is false.
ExperimentPlan expand_experiment(const ExperimentSpec& spec, bool confirmed);

// One `--set KEY=V1,V2,…` into an axis, each value typed like the key in a default TrainConfig's
// JSON (number, integer, bool, or word). Throws ConfigError naming the text, key or value.
ExperimentAxis parse_axis(const std::string& text);

// What a γ = 0 control must share with a method cell: the config without γ, Ḡ, the scale
// settings, the seed and the name (compact JSON text).
std::string control_context(const TrainConfig& config);

// The config as compared for reusing a finished run: everything but the run's name.
nlohmann::json comparable_config(const TrainConfig& config);

// The TrainConfig keys an axis may name (to_json of a default config).
std::vector<std::string> experiment_axis_keys();

}  // namespace hnclip
