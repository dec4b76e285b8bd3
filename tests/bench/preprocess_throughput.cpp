// preprocess_throughput: images/s of the CLIP preprocessing (JPEG decode, Pillow-exact bicubic
// resize, centre crop, normalise) as training runs it — SplitData::load_images on BatchLoader's
// worker threads, each worker loading whole batches — for 1 and 2 workers, next to the same work
// in Python with Pillow + torch (tests/core/reference/pillow_reference.py) as the peer.
//
// Usage: preprocess_throughput [--source jpeg|builtin] [--images N] [--n-px S] [--batch B]
//          [--repeats R] [--no-python]
// --source jpeg (the default) writes N 640x480 JPEGs (OpenCV, quality 90) into a scratch folder;
// --source builtin generates the built-in benchmark (size "small") there and takes the first N
// images of its train split: the 48x48 PNGs a default run trains on (use --n-px 48, the tiny
// preset's input, to preprocess them as that run does). The folder is removed at the end. After
// one warm-up pass (files in the page cache), R rounds (--repeats) each run one pass of ours with
// one worker and then one of the peer (a process of its own, with its own warm-up pass); each
// side's figure is its best of the R, the ratio the median of the rounds' ratios (each round's
// two sides ran back to back). Two workers run R passes after that. Figures are images per
// wall-clock second, and images per CPU-second of the whole process (user + system), which a
// machine shared with other jobs distorts less. A peer that fails fails the program (exit 1).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "bench/bench_support.h"
#include "data/batch_loader.h"
#include "data/image_pipeline.h"
#include "data/split_data.h"
#include "data/synthetic_benchmark.h"
#include "text/word_tokenizer.h"

namespace fs = std::filesystem;
using hnclip::BatchLoader;
using hnclip::BatchRequest;

namespace {

constexpr int kWidth = 640;   // a typical web photo
constexpr int kHeight = 480;
constexpr int kJpegQuality = 90;

// Photo-like content: smooth colour field, sensor-like noise, hard-edged shapes.
cv::Mat make_photo(uint64_t seed) {
  std::mt19937_64 rng(seed);
  cv::Mat img(kHeight, kWidth, CV_8UC3);
  const int phase = static_cast<int>(rng() % 256);
  for (int y = 0; y < kHeight; ++y) {
    auto* row = img.ptr<uint8_t>(y);
    for (int x = 0; x < kWidth; ++x) {
      const uint64_t r = rng();
      row[3 * x + 0] = static_cast<uint8_t>((x / 3 + phase) % 256 / 2 + (r & 31));
      row[3 * x + 1] = static_cast<uint8_t>((y / 2 + phase) % 256 / 2 + ((r >> 8) & 31));
      row[3 * x + 2] = static_cast<uint8_t>(((x + y) / 5) % 256 / 2 + ((r >> 16) & 31));
    }
  }
  for (int k = 0; k < 12; ++k) {
    const cv::Point c(static_cast<int>(rng() % kWidth), static_cast<int>(rng() % kHeight));
    const cv::Scalar colour(static_cast<double>(rng() % 256), static_cast<double>(rng() % 256),
                            static_cast<double>(rng() % 256));
    if (k % 2 == 0) {
      cv::circle(img, c, 10 + static_cast<int>(rng() % 80), colour, cv::FILLED);
    } else {
      cv::rectangle(img, cv::Rect(c.x, c.y, 20 + static_cast<int>(rng() % 150), 20 + static_cast<int>(rng() % 150)),
                    colour, cv::FILLED);
    }
  }
  return img;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Pass {
  double wall = 0.0;  // seconds
  double cpu = 0.0;   // process CPU seconds
  // The best of repeated passes: each figure its own minimum.
  void keep_best(const Pass& p) {
    wall = std::min(wall, p.wall);
    cpu = std::min(cpu, p.cpu);
  }
};

// One pass of the whole split through a BatchLoader with `workers` threads.
Pass loader_pass(const hnclip::SplitData& data, int workers, int batch) {
  std::vector<BatchRequest> requests;
  for (int64_t i = 0; i < data.num_images(); i += batch) {
    BatchRequest r;
    for (int64_t k = i; k < std::min<int64_t>(i + batch, data.num_images()); ++k) r.images.push_back(k);
    requests.push_back(std::move(r));
  }
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  BatchLoader loader(data, workers);
  loader.schedule(std::move(requests));
  hnclip::Batch b;
  int64_t seen = 0;
  while (loader.next(b)) seen += b.images.size(0);
  Pass p{seconds_since(t0), cpu_seconds() - c0};
  if (seen != data.num_images()) throw std::logic_error("loader delivered " + std::to_string(seen) + " images");
  return p;
}

// One pass of the peer (tests/core/reference/pillow_reference.py: a warm-up pass, then one timed
// pass, in a process of its own) over the same files: {images/s wall, images per CPU-second}, or
// nothing (said on stderr) when it failed.
std::optional<std::pair<double, double>> python_throughput(int n_px, const std::string& paths) {
  const std::string cmd = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                          "/core/reference/pillow_reference.py throughput " + std::to_string(n_px) +
                          " 1" + paths;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  double wall = 0.0;
  double cpu = 0.0;
  if (pipe == nullptr) {
    std::fprintf(stderr, "python peer failed to start: %s\n", cmd.c_str());
    return std::nullopt;
  }
  const bool read =
      std::fscanf(pipe, "images_per_second %lf images_per_cpu_second %lf", &wall, &cpu) == 2;
  if (::pclose(pipe) != 0 || !read) {
    std::fprintf(stderr, "python peer failed: %s\n", cmd.c_str());
    return std::nullopt;
  }
  return std::make_pair(wall, cpu);
}

}  // namespace

int main(int argc, char** argv) {
  int images = 200;
  int n_px = 224;
  int batch = 20;
  int repeats = 3;
  bool python = true;
  std::string source = "jpeg";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--source" && i + 1 < argc) {
      source = argv[++i];
      if (source != "jpeg" && source != "builtin") {
        std::cerr << "--source must be jpeg or builtin, not " << source << "\n";
        return 2;
      }
      continue;
    }
    auto value = [&]() {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return std::stoi(argv[++i]);
    };
    if (a == "--images") {
      images = value();
    } else if (a == "--n-px") {
      n_px = value();
    } else if (a == "--batch") {
      batch = value();
    } else if (a == "--repeats") {
      repeats = value();
    } else if (a == "--no-python") {
      python = false;
    } else {
      std::cerr << "unknown flag " << a << "\n";
      return 2;
    }
  }
  if (images < 1 || n_px < 1 || batch < 1 || repeats < 1) {
    std::cerr << "--images, --n-px, --batch and --repeats must be positive\n";
    return 2;
  }

  const fs::path dir = fs::temp_directory_path() / ("hnclip-preprocess-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<hnclip::Sample> samples;
  std::vector<std::string> captions;
  std::string paths;
  std::string what;
  if (source == "jpeg") {
    for (int i = 0; i < images; ++i) {
      const std::string path = (dir / ("img" + std::to_string(i) + ".jpg")).string();
      if (!cv::imwrite(path, make_photo(static_cast<uint64_t>(i)), {cv::IMWRITE_JPEG_QUALITY, kJpegQuality})) {
        throw std::runtime_error("cannot write " + path);
      }
      samples.push_back({path, {"photo " + std::to_string(i)}, "train", ""});
    }
    what = std::to_string(kWidth) + "x" + std::to_string(kHeight) + " JPEG q" + std::to_string(kJpegQuality);
  } else {
    hnclip::SyntheticOptions options;
    options.cache_dir = (dir / "cache").string();
    options.size = "small";
    const auto train = hnclip::open_synthetic_benchmark(options)->split("train");
    if (static_cast<int>(train.size()) < images) {
      std::cerr << "the built-in small benchmark's train split has " << train.size() << " images, fewer than --images "
                << images << "\n";
      return 2;
    }
    samples.assign(train.begin(), train.begin() + images);
    what = "the built-in benchmark's PNGs";
  }
  for (const auto& sample : samples) {
    captions.push_back(sample.captions.front());
    paths += " " + sample.image;
  }
  hnclip::ImagePipelineConfig cfg;
  cfg.image_size = n_px;
  auto tokenizer = std::make_shared<hnclip::WordTokenizer>(hnclip::WordTokenizer::build(captions, 8));
  const hnclip::SplitData data(samples, tokenizer, cfg);

  std::printf("images %d (%s), n_px %d, batch %d, %d rounds\n", images, what.c_str(), n_px, batch,
              repeats);
  loader_pass(data, 1, batch);  // warm-up: page cache, allocator
  // One worker against the peer in interleaved rounds — our pass, then a peer process's — so that
  // the two sides of each round's ratio ran seconds apart: on a shared machine one side's best of
  // R passes, taken minutes from the other's, has differed by 2x from run to run.
  Pass best1{1e30, 1e30};
  double py_best = 0.0;
  double py_cpu_best = 0.0;
  std::vector<double> round_ratio, round_ratio_cpu;
  for (int r = 0; r < repeats; ++r) {
    const Pass p = loader_pass(data, 1, batch);
    best1.keep_best(p);
    if (!python) continue;
    const auto py = python_throughput(n_px, paths);
    if (!py) {
      fs::remove_all(dir);
      return 1;
    }
    py_best = std::max(py_best, py->first);
    py_cpu_best = std::max(py_cpu_best, py->second);
    round_ratio.push_back(images / p.wall / py->first);
    round_ratio_cpu.push_back(images / p.cpu / py->second);
  }
  std::printf("cpp_batch_loader workers 1: %.1f images/s wall, %.1f images per CPU-second\n",
              images / best1.wall, images / best1.cpu);
  Pass best2{1e30, 1e30};
  for (int r = 0; r < repeats; ++r) best2.keep_best(loader_pass(data, 2, batch));
  std::printf("cpp_batch_loader workers 2: %.1f images/s wall, %.1f images per CPU-second\n",
              images / best2.wall, images / best2.cpu);
  if (python) {
    std::printf("python_pillow_torch 1 process: %.1f images/s wall, %.1f images per CPU-second\n",
                py_best, py_cpu_best);
    std::printf("ratio per round, cpp (1 worker) / python, CPU:");
    for (double x : round_ratio_cpu) std::printf(" %.3f", x);
    std::printf("\nratio cpp (1 worker) / python, median of the rounds: %.2f wall, %.2f CPU\n",
                hnclip::bench::median(round_ratio), hnclip::bench::median(round_ratio_cpu));
  }
  fs::remove_all(dir);
  return 0;
}
