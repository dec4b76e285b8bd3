#pragma once
// RunAssets: what a run's configuration turns into before any training — the benchmark's train
// and test splits (and the validation split, with --val-split) as PairedData, the tokenizer and
// the model at its starting point (or at a checkpoint).
// Shared by TrainingJob (train/resume) and the evaluation of a stored run.

#include <functional>
#include <memory>
#include <string>

#include "data/benchmark.h"
#include "data/split_data.h"
#include "model/clip_model.h"
#include "text/tokenizer.h"
#include "train/train_config.h"

namespace hnclip {

struct RunAssets {
  std::unique_ptr<Benchmark> benchmark;
  std::shared_ptr<const Tokenizer> tokenizer;
  ClipModel model{nullptr};             // starting weights (seeded init, then --init if given)
  std::unique_ptr<SplitData> train;
  std::unique_ptr<SplitData> test;
  std::unique_ptr<SplitData> val;  // null without config.val_split
};

// Validates the config, opens (or generates) the benchmark and builds tokenizer and model. The
// tokenizer and model shape come from `shape_checkpoint` when given (a run's own checkpoint),
// else from --init, else the tokenizer is built from the training captions and the shape from
// the --model preset. Throws ConfigError / DataError / CheckpointError naming the problem; a split
// the benchmark lacks is a ConfigError named with its flag (`test_split_flag` for
// config.test_split: `eval` and `stats` take it as --split).
RunAssets build_run_assets(const TrainConfig& config, const std::string& cache_dir,
                           const std::string& shape_checkpoint,
                           const std::function<void(const std::string&)>& log,
                           const std::string& test_split_flag = "--test-split");

// What build_run_assets checks of the files and names a configuration gives, without building the
// model or the splits' data: its values, --init (read, and checked against --model) and the three
// splits in `benchmark` (the one the configuration names, opened by the caller). Throws as
// build_run_assets does. An experiment is recorded only once each distinct input of its runs
// passed this: a missing --init or split used to record one whose every run failed to start.
void check_run_inputs(const TrainConfig& config, const Benchmark& benchmark,
                      const std::function<void(const std::string&)>& log);

}  // namespace hnclip
