#include "data/synthetic_benchmark.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "data/manifest_benchmark.h"
#include "data/synthetic_renderer.h"
#include "data/synthetic_segments.h"
#include "data/synthetic_split.h"
#include "fault/fault_point.h"

namespace hnclip {

namespace fs = std::filesystem;

namespace {

constexpr const char* kBenchmarkName = "synthetic";
constexpr const char* kTempMarker = ".partial-";   // <folder>.partial-<pid>: generation in progress
constexpr int kPngCompression = 3;                 // fixed so the bytes do not follow a library default
constexpr int64_t kProgressEvery = 2000;           // images between progress messages
constexpr const char* kSegmentsFile = "segments.json";  // GOAL's sidecar
constexpr int kTokenContext = 96;                  // the text tower's context the captions fit

std::string image_name(int64_t index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06lld.png", static_cast<long long>(index));
  return buf;
}

bool process_alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

// Removes temporary folders of `folder` left by generations whose process is gone (or by this
// process, whose earlier attempt failed). A live process's folder is left alone.
void remove_stale_temp_folders(const fs::path& folder) {
  const std::string prefix = folder.filename().string() + kTempMarker;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder.parent_path(), ec)) {
    const auto name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    long pid = 0;
    try {
      pid = std::stol(name.substr(prefix.size()));
    } catch (const std::exception&) {
      pid = 0;  // not ours to interpret: treat as stale
    }
    if (pid == static_cast<long>(::getpid()) || pid <= 0 || !process_alive(pid)) {
      fs::remove_all(entry.path(), ec);
    }
  }
}

void write_png(const fs::path& path, const cv::Mat& img) {
  std::vector<uchar> bytes;
  if (!cv::imencode(".png", img, bytes, {cv::IMWRITE_PNG_COMPRESSION, kPngCompression})) {
    throw std::runtime_error("synthetic benchmark: cannot encode " + path.string());
  }
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("synthetic benchmark: cannot write " + path.string());
}

void generate(const SyntheticOptions& options, const fs::path& dir,
              const std::function<void(const std::string&)>& progress) {
  const auto started = std::chrono::steady_clock::now();
  const auto spec = synthetic_size_spec(options.size);
  const SyntheticRenderer renderer;
  const fs::path manifest_path = dir / "manifest.jsonl";
  std::ofstream manifest(manifest_path, std::ios::binary);
  if (!manifest) throw std::runtime_error("synthetic benchmark: cannot write " + manifest_path.string());
  // GOAL's exact segments, one image per line (data/synthetic_segments.h).
  const fs::path segments_path = dir / kSegmentsFile;
  std::ofstream segments(segments_path, std::ios::binary);
  if (!segments) throw std::runtime_error("synthetic benchmark: cannot write " + segments_path.string());
  segments << "[";
  bool first_entry = true;
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& split : synthetic_split_names()) {
    const auto items = synthetic_split_items(spec, options.seed, split);
    const fs::path image_dir = dir / "images" / split;
    fs::create_directories(image_dir);
    for (size_t i = 0; i < items.size(); ++i) {
      const auto& item = items[i];
      const std::string rel = "images/" + split + "/" + image_name(static_cast<int64_t>(i));
      cv::Mat image = renderer.render(item.scene);
      if (split == kSyntheticShiftedSplit) shift_lighting(image);
      write_png(dir / rel, image);
      fault_point("benchmark.generate");
      nlohmann::json line = {{"image", rel}, {"captions", {item.caption}}, {"split", split}};
      if (!item.group.empty()) line["group"] = item.group;
      manifest << line.dump() << '\n';
      segments << (first_entry ? "\n" : ",\n")
               << synthetic_segment_entry(item.scene, renderer, rel, item.caption).dump();
      first_entry = false;
      if (progress && ((i + 1) % kProgressEvery == 0 || i + 1 == items.size())) {
        progress("synthetic-" + options.size + ": " + split + " " + std::to_string(i + 1) + "/" +
                 std::to_string(items.size()) + " images");
      }
    }
    counts[split] = items.size();
  }
  manifest.close();
  if (!manifest) throw std::runtime_error("synthetic benchmark: cannot write " + manifest_path.string());
  segments << "\n]\n";
  segments.close();
  if (!segments) throw std::runtime_error("synthetic benchmark: cannot write " + segments_path.string());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const nlohmann::json info = {
      {"name", kBenchmarkName},
      {"size", options.size},
      {"seed", options.seed},
      {"generator_version", kSyntheticGeneratorVersion},
      {"image_size", renderer.image_size()},
      {"context_length", kTokenContext},
      {"counts", counts},
      {"generation_seconds", seconds},
  };
  const fs::path info_path = dir / "info.json";
  std::ofstream info_out(info_path, std::ios::binary);
  info_out << info.dump(2) << '\n';
  info_out.close();
  if (!info_out) throw std::runtime_error("synthetic benchmark: cannot write " + info_path.string());
}

}  // namespace

std::string synthetic_benchmark_folder(const SyntheticOptions& options) {
  return (fs::path(options.cache_dir) / ("synthetic-" + options.size + "-s" + std::to_string(options.seed) + "-v" +
                                         std::to_string(kSyntheticGeneratorVersion)))
      .string();
}

bool synthetic_benchmark_generated(const SyntheticOptions& options) {
  std::error_code ec;
  return fs::exists(fs::path(synthetic_benchmark_folder(options)) / "manifest.jsonl", ec);
}

std::unique_ptr<Benchmark> open_synthetic_benchmark(const SyntheticOptions& options,
                                                    std::function<void(const std::string&)> progress) {
  if (options.cache_dir.empty()) throw std::invalid_argument("synthetic benchmark: cache_dir is empty");
  synthetic_size_spec(options.size);  // validates the size before touching the disk
  const fs::path folder = synthetic_benchmark_folder(options);
  if (!fs::exists(folder)) {
    fs::create_directories(folder.parent_path());
    remove_stale_temp_folders(folder);
    const fs::path temp = folder.string() + kTempMarker + std::to_string(::getpid());
    fs::create_directories(temp);
    try {
      generate(options, temp, progress);
      std::error_code ec;
      fs::rename(temp, folder, ec);
      if (ec) {
        // Another process finished the same benchmark first: keep its copy, discard ours.
        if (!fs::exists(folder)) {
          throw std::runtime_error("synthetic benchmark: cannot rename " + temp.string() + " to " + folder.string() +
                                   ": " + ec.message());
        }
        fs::remove_all(temp, ec);
      }
    } catch (...) {
      std::error_code ec;
      fs::remove_all(temp, ec);
      throw;
    }
  }
  return open_manifest_benchmark((folder / "manifest.jsonl").string(), kBenchmarkName);
}

}  // namespace hnclip
