#include "job/run_benchmark_spec.h"

#include <filesystem>

namespace hnclip {

BenchmarkSpec run_benchmark_spec(const TrainConfig& config, const std::string& cache_dir) {
  BenchmarkSpec spec;
  spec.name = config.benchmark;
  // A root recorded with the built-in benchmark was never read (earlier versions accepted
  // `train --data x` without --benchmark): the run's data is the built-in benchmark. The
  // generator's size and seed recorded with a data set on disk were never read either (earlier
  // versions, and the Train tab's greyed-out fields, stored them).
  if (config.benchmark == "synthetic") {
    spec.size = to_string(config.benchmark_size);
    spec.seed = config.data_seed;
  } else {
    spec.root = config.benchmark_root;
  }
  spec.cache_dir = cache_dir;
  if (config.max_image_pixels > 0) spec.images.max_pixels = config.max_image_pixels;
  spec.images.allow_outside_root = config.allow_outside_root;
  return spec;
}

std::string benchmark_data_key(const BenchmarkSpec& spec) {
  if (spec.name == "synthetic") return "synthetic:size=" + spec.size + ":seed=" + std::to_string(spec.seed);
  // Never throws: a stored config without a root (absolute("") throws) is listed, not fatal.
  std::error_code ec;
  const auto abs = std::filesystem::absolute(spec.root, ec);
  const auto canonical = ec ? abs : std::filesystem::weakly_canonical(abs, ec);
  return spec.name + ":" + (ec ? spec.root : canonical.string());
}

std::string benchmark_data_label(const BenchmarkSpec& spec) {
  if (spec.name == "synthetic")
    return "synthetic " + spec.size + " (seed " + std::to_string(spec.seed) + ")";
  return spec.name + " " + spec.root;
}

}  // namespace hnclip
