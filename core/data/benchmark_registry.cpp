#include "data/benchmark_registry.h"

#include <filesystem>
#include <stdexcept>

#include "data/dci_benchmark.h"
#include "data/docci_benchmark.h"
#include "data/manifest_benchmark.h"
#include "data/synthetic_benchmark.h"
#include "data/urban1k_benchmark.h"

namespace hnclip {

std::vector<std::string> benchmark_names() {
  return {"synthetic", "manifest", "docci", "dci", "long-dci", "urban1k"};
}

std::string default_validation_split(const std::string& benchmark) {
  if (benchmark == "synthetic") return "val";
  if (benchmark == "docci") return "qual_dev";
  if (benchmark == "dci") return "valid";
  return "";
}

namespace {
// What --data-root must point at, per real data set.
std::string root_folder_hint(const std::string& name) {
  if (name == "docci") return "the folder holding docci_descriptions.jsonlines and images/";
  if (name == "urban1k") return "the folder holding image/ and caption/";
  return "DCI's densely_captioned_images folder (annotations/, photos/, splits.json)";
}
}  // namespace

void check_data_root_is_read(const std::string& benchmark, const std::string& root) {
  if (benchmark != "synthetic" || root.empty()) return;
  const std::string ext = std::filesystem::path(root).extension().string();
  const bool manifest = ext == ".jsonl" || ext == ".csv" || ext == ".json";
  throw std::invalid_argument(
      "--data-root " + root +
      ": the built-in benchmark (--benchmark synthetic, the default) reads no data set; " +
      (manifest ? "for this manifest add --benchmark manifest"
                : "name the data set's kind with --benchmark manifest (a .jsonl or .csv file), "
                  "docci, dci, long-dci or urban1k (a folder)"));
}

void check_generator_settings_are_read(const std::string& benchmark, const std::string& size,
                                       uint64_t seed) {
  const BenchmarkSpec defaults;
  if (benchmark == "synthetic" || (size == defaults.size && seed == defaults.seed)) return;
  const std::string flag =
      size != defaults.size ? "--benchmark-size " + size : "--data-seed " + std::to_string(seed);
  throw std::invalid_argument(flag + ": --benchmark " + benchmark +
                              " reads its data set as it is; the size and --data-seed shape the "
                              "built-in benchmark only (--benchmark synthetic): leave them out");
}

std::unique_ptr<Benchmark> open_benchmark(const BenchmarkSpec& spec,
                                          std::function<void(const std::string&)> progress) {
  if (spec.name == "synthetic") {
    check_data_root_is_read(spec.name, spec.root);
    return open_synthetic_benchmark(SyntheticOptions{spec.cache_dir, spec.size, spec.seed},
                                    std::move(progress));
  }
  if (spec.name == "manifest") {
    if (spec.root.empty()) {
      throw std::invalid_argument("--benchmark manifest needs --data-root PATH (a .jsonl or .csv manifest)");
    }
    check_generator_settings_are_read(spec.name, spec.size, spec.seed);
    return open_manifest_benchmark(spec.root, "manifest", spec.images);
  }
  if (spec.name == "docci" || spec.name == "dci" || spec.name == "long-dci" || spec.name == "urban1k") {
    if (spec.root.empty()) {
      throw std::invalid_argument("--benchmark " + spec.name + " needs --data-root PATH (" +
                                  root_folder_hint(spec.name) + ")");
    }
    check_generator_settings_are_read(spec.name, spec.size, spec.seed);
    if (progress) progress("reading " + spec.name + " from " + spec.root);
    if (spec.name == "docci") return open_docci_benchmark(spec.root, spec.images);
    if (spec.name == "dci") return open_dci_benchmark(spec.root, spec.images);
    if (spec.name == "long-dci") return open_long_dci_benchmark(spec.root, progress, spec.images);
    return open_urban1k_benchmark(spec.root, spec.images);
  }
  std::string known;
  for (const auto& n : benchmark_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown --benchmark '" + spec.name + "' (known: " + known + ")");
}

}  // namespace hnclip
