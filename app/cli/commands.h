#pragma once
// The hnclip subcommands. Each add_*_command registers its options on `app` and returns the
// function main() runs when that subcommand was chosen (returning the exit code).

#include <functional>

#include <CLI/CLI.hpp>

#include "job/caption_geometry_job.h"
#include "train/train_config.h"

namespace hnclip::cli {

using CommandAction = std::function<int()>;

CommandAction add_train_command(CLI::App& app);
CommandAction add_pretrain_command(CLI::App& app);
CommandAction add_eval_command(CLI::App& app);
CommandAction add_runs_command(CLI::App& app);
CommandAction add_show_command(CLI::App& app);
CommandAction add_benchmark_command(CLI::App& app);
CommandAction add_probes_command(CLI::App& app);
CommandAction add_stats_command(CLI::App& app);
CommandAction add_neighbors_command(CLI::App& app);
CommandAction add_encode_command(CLI::App& app);
CommandAction add_tokenize_command(CLI::App& app);
CommandAction add_export_command(CLI::App& app);
CommandAction add_inspect_command(CLI::App& app);
CommandAction add_sweep_command(CLI::App& app);
CommandAction add_experiments_command(CLI::App& app);
CommandAction add_experiment_command(CLI::App& app);

// Every flag of `train` that sets a TrainConfig key (what `sweep` takes as its base).
void add_train_config_options(CLI::App* cmd, TrainConfig& config);

// --benchmark, --benchmark-size, --data, --data-seed, --split, --encoder, --device, --recompute
// of `stats` and `neighbors`.
void add_geometry_options(CLI::App* cmd, CaptionGeometryRequest& request);

}  // namespace hnclip::cli
