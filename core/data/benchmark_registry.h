#pragma once
// Opens a benchmark by name: the built-in `synthetic` (generated into a cache on first use), a
// user's `manifest` (JSONL/CSV), or one of the paper's real data sets read from its released
// folder: `docci` (data/docci_benchmark.h), `dci` and `long-dci` (data/dci_benchmark.h),
// `urban1k` (data/urban1k_benchmark.h).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "data/benchmark.h"
#include "data/image_file_check.h"

namespace hnclip {

struct BenchmarkSpec {
  std::string name = "synthetic";  // synthetic | manifest | docci | dci | long-dci | urban1k
  std::string size = "default";    // synthetic: small | default | large
  uint64_t seed = 1;               // synthetic generator seed
  std::string root;                // manifest: path of the .jsonl/.csv file; real data sets: their folder
  std::string cache_dir;           // synthetic: where generated benchmarks are kept
  ImageChecks images;              // real data: pixel limit and data-root rule for every image
};

std::vector<std::string> benchmark_names();

// The split a benchmark releases for choosing hyper-parameters and epochs without the test split:
// the built-in benchmark's `val`, DOCCI's `qual_dev`, DCI's `valid`; "" for the others (a
// manifest names its own with --val-split; Long-DCI and Urban1k are evaluation sets only).
std::string default_validation_split(const std::string& benchmark);

// A data root given with the built-in benchmark, which reads none: `train --data x.jsonl` without
// --benchmark manifest trained on the built-in benchmark and said nothing. Throws
// std::invalid_argument naming the flag and the benchmarks that take one; nothing otherwise.
// Checked for new work (open_benchmark, a new run, a sweep, an eval target); a run recorded so by
// an earlier version still evaluates and resumes (job/run_benchmark_spec.h drops its root).
void check_data_root_is_read(const std::string& benchmark, const std::string& root);

// The built-in benchmark's generator settings given with a data set on disk, which is read as it
// is: `train --benchmark manifest --benchmark-size large --data-seed 7` trained on the manifest
// and recorded both. Throws std::invalid_argument naming the flag and its value when `size` is not
// "default" or `seed` not 1 (the values a run without the flags keeps); nothing for the built-in
// benchmark. Checked for new work (open_benchmark, a new run, a sweep's cells); a run recorded so
// by an earlier version still evaluates and resumes (job/run_benchmark_spec.h drops them).
void check_generator_settings_are_read(const std::string& benchmark, const std::string& size,
                                       uint64_t seed);

// Throws DataError (bad files, naming file and line) or std::invalid_argument (unknown name,
// missing root or a root the built-in benchmark does not read, naming the flag).
std::unique_ptr<Benchmark> open_benchmark(const BenchmarkSpec& spec,
                                          std::function<void(const std::string&)> progress = {});

}  // namespace hnclip
