// hnclip: the headless front end of HN-CLIP Workbench (train, pretrain, eval, runs, show,
// benchmark, probes, stats, neighbors, encode, tokenize, export, inspect, sweep, experiments,
// experiment). Exit codes: 0 ok, 1 runtime failure, 2 usage error,
// 130 stopped by Ctrl-C.

#include <csignal>
#include <iostream>
#include <map>

#include "cli_support.h"
#include "commands.h"
#include "data/benchmark.h"
#include "store/run_store.h"
#include "train/checkpoint.h"
#include "train/train_config.h"
#include "usage_hint.h"

int main(int argc, char** argv) {
  using namespace hnclip::cli;
  // Under a file-size limit (ulimit -f) a write past it raises SIGXFSZ, which would kill the
  // process without a word; ignored, the write fails with EFBIG and the run fails naming the file.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"hnclip: fine-tune CLIP-style dual encoders with HN-CLIP margins (headless)"};
  app.require_subcommand(1);
  std::map<CLI::App*, CommandAction> actions;
  auto add = [&](const char* name, CommandAction action) { actions[app.get_subcommand(name)] = std::move(action); };
  add("train", add_train_command(app));
  add("pretrain", add_pretrain_command(app));
  add("eval", add_eval_command(app));
  add("runs", add_runs_command(app));
  add("show", add_show_command(app));
  add("benchmark", add_benchmark_command(app));
  add("probes", add_probes_command(app));
  add("stats", add_stats_command(app));
  add("neighbors", add_neighbors_command(app));
  add("encode", add_encode_command(app));
  add("tokenize", add_tokenize_command(app));
  add("export", add_export_command(app));
  add("inspect", add_inspect_command(app));
  add("sweep", add_sweep_command(app));
  add("experiments", add_experiments_command(app));
  add("experiment", add_experiment_command(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string hint = usage_hint(app, e);
    print_error(hint.empty() ? std::string(e.what()) + " (see --help)" : hint);
    return kExitUsage;
  }
  try {
    for (auto& [sub, action] : actions) {
      if (sub->parsed()) return action();
    }
    return kExitUsage;
  } catch (const hnclip::ConfigError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const UsageError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitRuntime;
  }
}
