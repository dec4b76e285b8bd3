// retrieval_query_latency: what the Retrieval tab's ad-hoc query costs on a 5k-image split with
// the tiny model — the one-time cost of encoding the split (RunRetriever::open with a cold
// embedding cache), reopening with a warm cache, and the latency of one ad-hoc query (tokenise,
// encode the caption with the loaded checkpoint, score against the cached image embeddings, top-k).
//
// Usage: retrieval_query_latency WORK_DIR [--images N] [--queries Q] [--k K] [--threads T]
// The split is a manifest benchmark written into WORK_DIR: N test images, symbolic links to the
// images of the built-in synthetic benchmark (size small, generated into WORK_DIR/cache), each
// with its own captions; the run is one stored run whose checkpoint is the committed pretrained
// tiny model. Query latency is the median (and p90) over Q distinct captions after one warm-up.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/benchmark_registry.h"
#include "job/run_retriever.h"
#include "job/workbench_paths.h"
#include "store/run_store.h"
#include "train/compute_setup.h"
#include "train/train_config.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string json_string(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: retrieval_query_latency WORK_DIR [--images N] [--queries Q] [--k K] "
                 "[--threads T]\n";
    return 2;
  }
  const fs::path work = fs::absolute(argv[1]);
  int64_t images = 5000, queries = 50, k = 10;
  int threads = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long v = std::stoll(argv[i + 1]);
    if (flag == "--images")
      images = v;
    else if (flag == "--queries")
      queries = v;
    else if (flag == "--k")
      k = v;
    else if (flag == "--threads")
      threads = static_cast<int>(v);
    else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  hnclip::configure_threads(threads);
  fs::create_directories(work / "img");
  const std::string cache = (work / "cache").string();

  // The synthetic benchmark's images (all splits) as the pool the manifest links to.
  hnclip::BenchmarkSpec spec;
  spec.size = "small";
  spec.cache_dir = cache;
  const auto bench = hnclip::open_benchmark(spec);
  std::vector<hnclip::Sample> pool;
  for (const char* s : {"pretrain", "train", "val", "test"})
    for (auto& sample : bench->split(s)) pool.push_back(std::move(sample));
  const fs::path manifest = work / "manifest.jsonl";
  {
    std::ofstream m(manifest);
    for (int64_t i = 0; i < images + 8; ++i) {
      const auto& src = pool[static_cast<size_t>(i) % pool.size()];
      const fs::path link = work / "img" / (std::to_string(i) + ".png");
      if (!fs::exists(fs::symlink_status(link))) fs::create_symlink(src.image, link);
      m << R"({"image": )" << json_string("img/" + std::to_string(i) + ".png") << R"(, "caption": )"
        << json_string(src.captions.front()) << R"(, "split": ")" << (i < images ? "test" : "train")
        << "\"}\n";
    }
  }

  // One stored run whose only checkpoint is the pretrained tiny model.
  const std::string db = (work / "runs.db").string();
  fs::remove(db);
  hnclip::TrainConfig config;
  config.benchmark = "manifest";
  config.benchmark_root = manifest.string();
  config.init = "pretrained";
  config.device = hnclip::DeviceSpec{hnclip::DeviceKind::kCpu};
  hnclip::RunStore store(db);
  hnclip::RunRecord r;
  r.name = "latency";
  r.config_json = nlohmann::json(config).dump();
  const int64_t run = store.create_run(r);
  store.add_checkpoint(run, {1, 0, hnclip::resolve_init_checkpoint("pretrained"), 0.0, 0});
  store.set_best_epoch(run, 1);

  hnclip::RunRetrieverOptions o;
  o.database = db;
  o.cache_dir = cache;
  o.run_id = run;
  o.loader_workers = 1;
  {
    std::error_code ec;
    fs::remove_all(work / "cache" / "split-embeddings", ec);  // a cold cache for the first open
  }
  auto t0 = Clock::now();
  auto cold = hnclip::RunRetriever::open(o);
  const double cold_s = seconds_since(t0);
  cold.reset();
  t0 = Clock::now();
  auto warm = hnclip::RunRetriever::open(o);
  const double warm_s = seconds_since(t0);
  if (!warm->embeddings_from_cache()) {
    std::cerr << "the second open did not read the cache\n";
    return 1;
  }

  std::vector<std::string> texts;
  for (int64_t i = 0; i < queries + 1; ++i)
    texts.push_back(pool[static_cast<size_t>(i * 7) % pool.size()].captions.front());
  warm->query_text(texts[0], k);  // warm-up
  std::vector<double> ms;
  for (int64_t i = 1; i <= queries; ++i) {
    t0 = Clock::now();
    const auto top = warm->query_text(texts[static_cast<size_t>(i)], k);
    ms.push_back(1e3 * seconds_since(t0));
    if (static_cast<int64_t>(top.size()) != k) return 1;
  }
  std::sort(ms.begin(), ms.end());
  const auto& we = warm->embeddings();
  std::printf("split: %lld images, %lld captions, dim %lld; threads %d\n",
              static_cast<long long>(we.num_images), static_cast<long long>(we.num_captions),
              static_cast<long long>(we.dim), threads);
  std::printf("open with cold cache (load checkpoint + encode split + write cache): %.2f s\n",
              cold_s);
  std::printf("open with warm cache (load checkpoint + read cache): %.3f s\n", warm_s);
  std::printf(
      "ad-hoc query (encode caption + score %lld images + top-%lld): median %.2f ms, p90 %.2f ms, "
      "max %.2f ms over %zu\n",
      static_cast<long long>(we.num_images), static_cast<long long>(k), ms[ms.size() / 2],
      ms[ms.size() * 9 / 10], ms.back(), ms.size());
  std::printf("cache file: %s (%lld bytes)\n", warm->cache_file().c_str(),
              static_cast<long long>(fs::file_size(warm->cache_file())));
  return 0;
}
