// `hnclip sweep`: an experiment in one command — a base configuration (every `train` flag, a
// --preset, or a --config file), axes (--set KEY=V1,V2,…) and seeds, with its controls added by
// default — stored, trained to the end (Ctrl-C cancels; `hnclip experiment resume ID` goes on),
// and its table printed.

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "data/benchmark_registry.h"
#include "experiment/experiment_presets.h"
#include "experiment_output.h"
#include "flags_without_effect.h"
#include "job/experiment_runner.h"
#include "job/settings_without_effect.h"
#include "text/terminal_column.h"
#include "train/builtin_recipe.h"

namespace hnclip::cli {

namespace {

struct SweepOptions {
  CommonOptions common;
  TrainConfig config;
  std::vector<std::string> sets;
  std::string seeds;
  int parallel = 2;  // ExperimentSpec's default, measured on 2 cores
  std::string preset;
  std::string config_file;
  std::string select = kSelectAuto;
  std::string control_scales;
  bool no_controls = false;
  bool yes = false;
  bool dry_run = false;
  bool csv = false;
  bool latex = false;
};

// "1,2,3" -> {1, 2, 3}; errors name `flag`.
template <typename T>
std::vector<T> number_list(const std::string& text, const std::string& flag) {
  std::vector<T> out;
  std::stringstream in(text);
  std::string word;
  while (std::getline(in, word, ',')) {
    std::istringstream w(word);
    T v{};
    char rest = 0;
    if (word.empty() || word[0] == '-' || !(w >> v) || (w >> rest)) {
      throw UsageError(flag + " " + text + ": '" + word + "' is not a " +
                       (std::is_integral_v<T> ? "non-negative integer" : "number"));
    }
    out.push_back(v);
  }
  if (out.empty()) throw UsageError(flag + ": no values");
  return out;
}

// An experiment file: a JSON object (experiment/experiment_spec.h); a syntax error names the
// file and line.
ExperimentSpec read_spec_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--config " + path + ": cannot read the file");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const size_t upto = std::min(text.size(), e.byte > 0 ? e.byte - 1 : 0);
    const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(upto), '\n');
    throw UsageError(path + ":" + std::to_string(line) + ": not JSON (" + e.what() + ")");
  }
  ExperimentSpec spec;
  try {
    from_json(j, spec);
    // Checked here, before the base is read into a TrainConfig: that read keeps only the keys it
    // knows, and a misspelt "epoch" left every run of the grid at the default 10.
    try {
      require_known_config_keys(spec.base);
      TrainConfig typed;
      from_json(spec.base, typed);  // a value of the wrong type or word, named with the file
    } catch (const ConfigError& e) {
      throw ConfigError(std::string("base configuration: ") + e.what());
    }
    for (const auto& axis : spec.axes) {
      if (axis.key == "seed") continue;  // the seeds as an axis
      try {
        require_known_config_key(axis.key);
      } catch (const ConfigError& e) {
        throw ConfigError("axis '" + axis.key + "': " + e.what());
      }
    }
    for (const char* key : {"seed", "name"}) {
      if (spec.base.contains(key))
        throw ConfigError(std::string("base configuration: '") + key +
                          "' is not read from the base (an experiment's runs take their seeds from "
                          "\"seeds\" and their names from their cells)");
    }
  } catch (const ConfigError& e) {
    throw ConfigError(path + ": " + e.what());
  }
  return spec;
}

// The `train` flags given on this command line, applied over `start` (so a preset's recipe keeps
// every key the user did not set, even where the user set a key to TrainConfig's default).
TrainConfig with_given_flags(const CLI::App* cmd, const TrainConfig& start) {
  TrainConfig out = start;
  CLI::App scratch;
  take_last_value(&scratch);
  add_train_config_options(&scratch, out);
  std::vector<std::string> args;
  for (const auto* opt : cmd->get_options()) {
    if (opt->count() == 0 || opt->get_name().rfind("--", 0) != 0) continue;
    if (!scratch.get_option_no_throw(opt->get_name())) continue;
    // NAME=VALUE works for options and flags alike (a flag's result is its "true"/"false").
    for (const auto& r : opt->results()) args.push_back(opt->get_name() + "=" + r);
  }
  std::reverse(args.begin(), args.end());  // CLI11 parses a vector from its back
  scratch.parse(args);
  return out;
}

}  // namespace

CommandAction add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand(
      "sweep",
      "train an experiment: a grid of runs over config keys and seeds with its controls (for "
      "every γ > 0 cell: γ = 0 with everything else equal, a learnt scale, fixed scales), then "
      "print its table with mean ± std over seeds and paired tests");
  take_last_value(cmd);
  add_train_config_options(cmd, o->config);
  add_common_options(cmd, o->common);
  cmd->add_option("--set", o->sets,
                  "KEY=V1,V2,…: an axis over a run config key as stored in a run's config JSON "
                  "(loss_gamma, loss_gbar, logit_scale, fixed_scale, lr, data_fraction, "
                  "batch_size, epochs, init, peft, benchmark, test_split, seed, …); repeat for "
                  "more axes (their product is the grid)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--seeds", o->seeds, "seeds of every cell (default 1,2,3)");
  cmd->add_option("--parallel", o->parallel,
                  "runs at a time; --threads is split between them (2 x 1 thread finished "
                  "two runs 1.9x sooner than 1 x 2 threads on a 2-core machine; with one GPU, "
                  "measure before going beyond 1)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--preset", o->preset,
                  "gamma-sweep (γ 0…1 at s 100), gamma-scale (γ × fixed s), gbar (recomputed vs "
                  "frozen), sample-efficiency (5/20/50/100 %): 3 seeds, controls included, on the "
                  "presets' recipe (lr 1e-3, 10 epochs); train flags and --set change it")
      ->check(CLI::IsMember(experiment_preset_names()));
  cmd->add_option("--config", o->config_file,
                  "an experiment file (JSON: name, preset, base, axes [{key, values}], seeds, "
                  "controls, control_scales, parallel, selection)");
  cmd->add_option("--select", o->select,
                  "epoch selection for the tables: auto (val when there is a validation split, "
                  "else last), val, last, or test (optimistic)")
      ->check(CLI::IsMember({"auto", "val", "last", "test"}))
      ->capture_default_str();
  cmd->add_option("--control-scales", o->control_scales,
                  "fixed logit scales of the plain-InfoNCE controls (default 10,20,50,100)");
  cmd->add_flag("--no-controls", o->no_controls,
                "leave the controls out (every report then says the numbers have none)");
  cmd->add_flag("--yes", o->yes, "start even when the grid holds more than 200 runs");
  cmd->add_flag("--dry-run", o->dry_run,
                "print the grid (configurations, runs, runs reused) without storing or training");
  cmd->add_flag("--csv", o->csv, "the final table as CSV");
  cmd->add_flag("--latex", o->latex, "the final table as LaTeX (booktabs)");
  return [o, cmd]() {
    const ReportFormat format = report_format(o->common.json, o->csv, o->latex);
    if (cmd->count("--seed") > 0) {
      throw UsageError("--seed: an experiment's seeds are --seeds (e.g. --seeds 1,2,3)");
    }
    ExperimentSpec spec;
    bool val_split_given = cmd->count("--val-split") > 0;
    // The keys the file sets (at a value other than the default) or varies, and the keys --set
    // varies: each is refused below if no configuration of the experiment reads it.
    std::vector<std::string> file_keys, set_keys;
    if (!o->config_file.empty()) {
      spec = read_spec_file(o->config_file);
      file_keys = keys_off_their_defaults(spec.base);
      for (const auto& axis : spec.axes) file_keys.push_back(axis.key);
      val_split_given = val_split_given || spec.base.contains("val_split");
      if (!spec.preset.empty() && o->preset.empty()) o->preset = spec.preset;
    }
    if (!o->preset.empty()) {
      const ExperimentSpec preset = experiment_preset(o->preset);
      if (o->config_file.empty()) {
        spec = preset;
      } else {
        // The file's own keys win over its preset's.
        nlohmann::json merged = preset.base;
        for (const auto& [k, v] : spec.base.items()) merged[k] = v;
        spec.base = merged;
        if (spec.axes.empty()) spec.axes = preset.axes;
        if (spec.name.empty()) spec.name = preset.name;
      }
    }
    // The base: the file's or preset's keys, then every train flag given here.
    TrainConfig start;
    if (!o->config_file.empty() || !o->preset.empty()) {
      // A file that names no starting point starts where `train` would on its benchmark (the
      // committed checkpoint on the built-in one), not from random weights by way of
      // TrainConfig's "": the same base as the same keys given as flags.
      const bool named_start =
          names_a_start(spec.base) || cmd->count("--init") > 0 || cmd->count("--model") > 0;
      nlohmann::json j = TrainConfig{};
      for (const auto& [k, v] : spec.base.items()) j[k] = v;
      from_json(j, start);
      start = with_given_flags(cmd, start);
      if (!named_start) {
        start.init = default_init_for(start);
        if (!start.init.empty())
          std::cerr << "starting from --init " << start.init
                    << " (the built-in benchmark's default; \"init\": \"random\" in the file "
                       "or --init random trains from scratch)"
                    << std::endl;
      }
    } else {
      start = o->config;
      if (start.init == kRandomInit) {
        start.init.clear();
      } else if (cmd->count("--init") == 0 && cmd->count("--model") == 0) {
        start.init = default_init_for(start);
      }
    }
    if (start.init == kRandomInit) start.init.clear();
    nlohmann::json base = start;
    base.erase("name");
    base.erase("seed");
    // A benchmark that releases a validation split (the built-in val, DOCCI's qual_dev, DCI's
    // valid) has its epochs selected on it unless told otherwise (--val-split=).
    if (!val_split_given && start.val_split.empty()) {
      const auto val = default_validation_split(start.benchmark);
      if (!val.empty()) base["val_split"] = val;
    }
    spec.base = base;
    for (const auto& text : o->sets) {
      ExperimentAxis axis = parse_axis(text);
      set_keys.push_back(axis.key);
      auto same = std::find_if(spec.axes.begin(), spec.axes.end(),
                               [&](const ExperimentAxis& a) { return a.key == axis.key; });
      if (same != spec.axes.end() && !o->preset.empty()) {
        *same = axis;  // --set replaces a preset's axis over the same key
      } else {
        spec.axes.push_back(std::move(axis));
      }
    }
    // Given empty (`--seeds "$SEEDS"` with nothing in it) is refused below, not read as 1,2,3.
    if (cmd->count("--seeds") > 0) spec.seeds = number_list<uint64_t>(o->seeds, "--seeds");
    if (cmd->count("--parallel") > 0) spec.parallel = o->parallel;
    if (!o->config.name.empty()) spec.name = o->config.name;  // --name names the experiment
    if (spec.name.empty()) spec.name = "sweep";
    if (o->no_controls) spec.controls = false;
    if (cmd->count("--control-scales") > 0)
      spec.control_scales = number_list<double>(o->control_scales, "--control-scales");
    if (cmd->count("--select") > 0 || o->config_file.empty()) spec.selection = o->select;

    const ExperimentPlan plan = expand_experiment(spec, o->yes);
    std::vector<TrainConfig> cell_configs;
    for (const auto& cell : plan.cells) cell_configs.push_back(cell.config);
    if (const std::string inert = flag_without_effect_in_every(cmd, cell_configs); !inert.empty()) {
      throw UsageError(
          inert + " in any of the experiment's " + std::to_string(cell_configs.size()) +
          " configurations: leave it out, or add what it needs (nothing was recorded)");
    }
    for (const auto& [where, keys] : {std::pair{o->config_file + ": ", &file_keys},
                                      std::pair{std::string("--set: "), &set_keys}}) {
      if (const std::string inert = config_key_without_effect_in_every(*keys, cell_configs);
          !inert.empty()) {
        throw UsageError(where + inert + " in any of the experiment's " +
                         std::to_string(cell_configs.size()) +
                         " configurations: leave it out, or add what it needs (nothing was "
                         "recorded)");
      }
    }
    if (o->dry_run) {
      std::cout << plan.cells.size() << " configurations × "
                << (plan.cells.empty() ? 0 : plan.slots.size() / plan.cells.size())
                << " seeds = " << plan.slots.size() << " runs; selection: " << plan.selection
                << (spec.controls ? "" : "; NO controls (--no-controls)") << "\n";
      // The base as the keys that differ from `train`'s defaults: what the grid varies around.
      const nlohmann::json defaults = TrainConfig{};
      std::string differs;
      for (const auto& [k, v] : spec.base.items()) {
        if (!defaults.contains(k) || defaults[k] != v) differs += " " + k + "=" + v.dump();
      }
      std::cout << "base:" << (differs.empty() ? " train's defaults" : differs) << "\n";
      // Columns that line up whatever the number of cells and the roles' lengths.
      std::vector<std::string> roles;
      for (const auto& c : plan.cells) roles.push_back(c.role);
      const size_t cell_width = std::max<size_t>(4, std::to_string(plan.cells.size()).size());
      const size_t role_width = column_width("role", roles, kMaxNameColumn);
      const auto right = [&](const std::string& s) {
        return std::string(cell_width - std::min(cell_width, s.size()), ' ') + s;
      };
      std::cout << "  " << right("cell") << "  " << pad_column("role", role_width + 1)
                << " configuration\n";
      for (const auto& c : plan.cells) {
        std::cout << "  " << right(std::to_string(c.index)) << "  "
                  << pad_column(c.role, role_width + 1) << " " << c.label << "\n";
      }
      return kExitOk;
    }
    const JobPaths paths = o->common.paths();
    const auto created = create_experiment(spec, o->yes, paths,
                                           [](const std::string& m) { std::cerr << m << std::endl; });
    std::cerr << "experiment " << created.id << " \"" << spec.name << "\": " << created.cells
              << " configurations, " << created.runs << " runs (" << created.reused
              << " reused), selection: " << created.selection
              << (spec.controls ? "" : ", NO controls (--no-controls)") << std::endl;
    return run_experiment_to_end(created.id, paths, format);
  };
}

}  // namespace hnclip::cli
