#include "job/run_benchmark_spec.h"

namespace hnclip {

BenchmarkSpec run_benchmark_spec(const TrainConfig& config, const std::string& cache_dir) {
  BenchmarkSpec spec;
  spec.name = config.benchmark;
  spec.size = to_string(config.benchmark_size);
  spec.seed = config.data_seed;
  spec.root = config.benchmark_root;
  spec.cache_dir = cache_dir;
  if (config.max_image_pixels > 0) spec.images.max_pixels = config.max_image_pixels;
  spec.images.allow_outside_root = config.allow_outside_root;
  return spec;
}

}  // namespace hnclip
