#pragma once
// Opens a benchmark by name: the built-in `synthetic` (generated into a cache on first use) or a
// user's `manifest` (JSONL/CSV). The real-data readers (DOCCI, DCI, Urban-1K) plug in here.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "data/benchmark.h"

namespace hnclip {

struct BenchmarkSpec {
  std::string name = "synthetic";  // synthetic | manifest
  std::string size = "default";    // synthetic: small | default | large
  uint64_t seed = 1;               // synthetic generator seed
  std::string root;                // manifest: path of the .jsonl/.csv file
  std::string cache_dir;           // synthetic: where generated benchmarks are kept
};

std::vector<std::string> benchmark_names();

// Throws DataError (bad files, naming file and line) or std::invalid_argument (unknown name or
// missing root, naming the flag).
std::unique_ptr<Benchmark> open_benchmark(const BenchmarkSpec& spec,
                                          std::function<void(const std::string&)> progress = {});

}  // namespace hnclip
