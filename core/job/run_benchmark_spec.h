#pragma once
// The benchmark a run's configuration names, as a BenchmarkSpec: what the run trained and was
// evaluated on, so the exploration tabs (and the run's own assets) read the very same split.
// Plain C++ (no LibTorch): the GUI includes it.

#include <string>

#include "data/benchmark_registry.h"
#include "train/train_config.h"

namespace hnclip {

BenchmarkSpec run_benchmark_spec(const TrainConfig& config, const std::string& cache_dir);

// The data a spec names, as one stable string: "synthetic:size=S:seed=N" for the built-in
// benchmark, "<name>:<absolute root>" otherwise. Keys what is stored per data set (caption
// geometry with "#<split>" appended, transfer evaluations).
std::string benchmark_data_key(const BenchmarkSpec& spec);
// The same data as a person names it, for output: "synthetic default (seed 1)", or the
// benchmark's name and its root as given ("urban1k /data/Urban1k").
std::string benchmark_data_label(const BenchmarkSpec& spec);

}  // namespace hnclip
