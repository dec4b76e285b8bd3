#pragma once
// A `train` flag that the rest of the command line makes inert: `--peft-rank 4` without --peft,
// `--finelip-margin` with another framework, `--gbar frozen` at γ = 0, `--context-length` or
// `--vocab` beside a checkpoint that brings its own tokenizer. Each was accepted, stored in the
// run's config and never read, so the run looked as if it had been trained with a setting it never
// had. Refused instead, naming the flag and what it needs. (--benchmark-size and --data-seed
// beside a data set on disk are refused by the core for every command, data/benchmark_registry.h:
// check_generator_settings_are_read; given at their defaults they are accepted, as here.)

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "train/train_config.h"

namespace hnclip::cli {

// The first flag given to `cmd` that `config` does not use, as a sentence for the error
// ("--peft-rank has no effect without --peft lora or dora"); "" when every flag given is used.
std::string flag_without_effect(const CLI::App* cmd, const TrainConfig& config);

// The same for an experiment: the first flag that every one of `configs` (its cells) leaves inert.
// A flag one cell uses is kept (`--gbar frozen` beside `--set loss_gamma=0,0.5`).
std::string flag_without_effect_in_every(const CLI::App* cmd,
                                         const std::vector<TrainConfig>& configs);

}  // namespace hnclip::cli
