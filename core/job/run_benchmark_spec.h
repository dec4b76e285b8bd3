#pragma once
// The benchmark a run's configuration names, as a BenchmarkSpec: what the run trained and was
// evaluated on, so the exploration tabs (and the run's own assets) read the very same split.
// Plain C++ (no LibTorch): the GUI includes it.

#include <string>

#include "data/benchmark_registry.h"
#include "train/train_config.h"

namespace hnclip {

BenchmarkSpec run_benchmark_spec(const TrainConfig& config, const std::string& cache_dir);

}  // namespace hnclip
