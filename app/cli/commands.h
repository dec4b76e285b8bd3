#pragma once
// The hnclip subcommands. Each add_*_command registers its options on `app` and returns the
// function main() runs when that subcommand was chosen (returning the exit code).

#include <functional>

#include <CLI/CLI.hpp>

namespace hnclip::cli {

using CommandAction = std::function<int()>;

CommandAction add_train_command(CLI::App& app);
CommandAction add_pretrain_command(CLI::App& app);
CommandAction add_eval_command(CLI::App& app);
CommandAction add_runs_command(CLI::App& app);
CommandAction add_show_command(CLI::App& app);
CommandAction add_benchmark_command(CLI::App& app);
CommandAction add_probes_command(CLI::App& app);

}  // namespace hnclip::cli
