#include "data/benchmark_registry.h"

#include <stdexcept>

#include "data/manifest_benchmark.h"
#include "data/synthetic_benchmark.h"

namespace hnclip {

std::vector<std::string> benchmark_names() { return {"synthetic", "manifest"}; }

std::unique_ptr<Benchmark> open_benchmark(const BenchmarkSpec& spec,
                                          std::function<void(const std::string&)> progress) {
  if (spec.name == "synthetic") {
    return open_synthetic_benchmark(SyntheticOptions{spec.cache_dir, spec.size, spec.seed},
                                    std::move(progress));
  }
  if (spec.name == "manifest") {
    if (spec.root.empty()) {
      throw std::invalid_argument("--benchmark manifest needs --data PATH (a .jsonl or .csv manifest)");
    }
    return open_manifest_benchmark(spec.root, "manifest");
  }
  throw std::invalid_argument("unknown --benchmark '" + spec.name + "' (known: synthetic, manifest)");
}

}  // namespace hnclip
