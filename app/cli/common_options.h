#pragma once
// The option helpers the subcommands share: --db, --cache-dir and --json; the options naming a
// benchmark; flags bound to one of TrainConfig's choices.

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_support.h"
#include "job/run_evaluation.h"
#include "train/train_config.h"

namespace hnclip::cli {

// Later occurrences of a flag override earlier ones (as in most CLIs), so scripts can append.
inline void take_last_value(CLI::App* cmd) {
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

inline void add_common_options(CLI::App* cmd, CommonOptions& o, bool with_json = true) {
  cmd->add_option("--db", o.database,
                  "SQLite run database (default: $XDG_DATA_HOME/hnclip-workbench/runs.db)");
  cmd->add_option(
      "--cache-dir", o.cache_dir,
      "where generated benchmarks are kept (default: $XDG_CACHE_HOME/hnclip-workbench)");
  if (with_json) cmd->add_flag("--json", o.json, "machine-readable output on stdout");
}

// The run a command reads, as `COMMAND ID` or `COMMAND --run ID`: `show` and `experiment show`
// take their id positionally, and `probes 3` used to answer "--run is required".
inline void add_run_id_options(CLI::App* cmd, int64_t& run) {
  auto* named = cmd->add_option("--run", run, "run id");
  auto* positional = cmd->add_option("run", run, "run id (the same as --run)");
  named->excludes(positional);
  cmd->parse_complete_callback([cmd] {
    if (cmd->count("--run") + cmd->count("run") == 0)
      throw CLI::RequiredError(
          "a run id is required: hnclip " + cmd->get_name() + " ID (or --run ID)",
          CLI::ExitCodes::RequiredError);
  });
}

// A flag bound to one of TrainConfig's choices (an enum): the word is checked as IsMember checks a
// string flag (same message), then stored through from_string; the help shows the current word.
template <typename Choice>
CLI::Option* add_choice_option(CLI::App* cmd, const std::string& flag, Choice& target,
                               std::vector<std::string> words, const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          flag, [&target](const std::string& s) { from_string(s, target); }, help)
      ->check(CLI::IsMember(std::move(words)))
      ->default_str(to_string(target));
}

// --benchmark, --benchmark-size, --data-root/--data and --data-seed, spelled the same on every
// command that opens a benchmark. `size` is a BenchmarkSpec's string or a TrainConfig's enum.
template <typename Size>
void add_benchmark_options(CLI::App* cmd, std::string& name, Size& size, std::string& root,
                           uint64_t& seed) {
  cmd->add_option("--benchmark", name,
                  "synthetic (built in), manifest, docci, dci, long-dci or urban1k")
      ->capture_default_str();
  const char* size_help = "synthetic: small | default | large";
  if constexpr (std::is_same_v<Size, std::string>) {
    cmd->add_option("--benchmark-size", size, size_help)
        ->check(CLI::IsMember({"small", "default", "large"}))
        ->capture_default_str();
  } else {
    add_choice_option(cmd, "--benchmark-size", size, {"small", "default", "large"}, size_help);
  }
  cmd->add_option("--data-root,--data", root,
                  "manifest: the .jsonl/.csv file; docci, dci, long-dci, urban1k: the data set's "
                  "folder");
  cmd->add_option("--data-seed", seed, "synthetic: generator seed")->capture_default_str();
}

// --max-image-pixels and --allow-outside-root: what a real data set's images are checked against
// when the benchmark is opened (data/image_file_check.h). `zero_is_default`: a TrainConfig stores
// 0 for "the default limit", a BenchmarkSpec the limit itself.
inline void add_image_check_options(CLI::App* cmd, int64_t& max_pixels, bool& allow_outside_root,
                                    bool zero_is_default) {
  auto* o = cmd->add_option("--max-image-pixels", max_pixels,
                            std::string("largest width x height of an image, read from its header "
                                        "before anything is decoded") +
                                (zero_is_default ? "; 0 = 178956970 (Pillow's decompression-bomb "
                                                   "limit)"
                                                 : " (default: Pillow's decompression-bomb limit)"));
  o->capture_default_str();
  o->check(CLI::NonNegativeNumber);
  cmd->add_flag("--allow-outside-root", allow_outside_root,
                "accept image paths that leave the data root (../, absolute paths elsewhere)");
}

// Where `eval` and `experiment eval` evaluate (job/run_evaluation.h's EvalTarget): the benchmark
// options above, every one unset by default (the run's own value), and --split. --data-seed lands
// in `seed`; the command sets target.data_seed from it when the flag was given.
inline void add_eval_target_options(CLI::App* cmd, EvalTarget& target, uint64_t& seed) {
  add_benchmark_options(cmd, target.benchmark, target.benchmark_size, target.root, seed);
  cmd->get_option("--data-seed")->default_str("the run's");
  cmd->add_option("--split", target.split,
                  "the split to evaluate (default: the run's test split; the built-in benchmark's "
                  "`shifted` is a test set under a lighting shift no split trains on)");
  // Another data set's images are checked with these, not with the run's own settings.
  add_image_check_options(cmd, target.max_image_pixels, target.allow_outside_root,
                          /*zero_is_default=*/true);
}

}  // namespace hnclip::cli
