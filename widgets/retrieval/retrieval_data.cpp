#include "widgets/retrieval/retrieval_data.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "data/benchmark_summary.h"
#include "job/caption_geometry_job.h"
#include "job/run_benchmark_spec.h"
#include "job/unchanged_run_data.h"
#include "job/workbench_paths.h"
#include "train/train_config.h"

namespace hnclip::gui {

RetrievalQueries load_retrieval_queries(const std::string& database, const std::string& cache_dir,
                                        int64_t run_a, int epoch_a, int64_t run_b, int epoch_b,
                                        const std::string& direction,
                                        std::shared_ptr<const SplitCatalog> catalog,
                                        const std::atomic<bool>* cancel,
                                        const std::function<void(const std::string&)>& progress) {
  RetrievalQueries q;
  q.direction = direction;
  RunStore store(database);
  std::vector<RunRecord> runs;
  for (const int64_t id : {run_a, run_b}) {
    auto run = store.find_run(id);
    if (!run) throw StoreError(database + ": run " + std::to_string(id) + " does not exist");
    runs.push_back(std::move(*run));
  }
  // Run A's config names the split both runs were tested on (the tab pairs only such runs).
  const TrainConfig c = parse_train_config(runs.front().config_json);
  const BenchmarkSpec spec = run_benchmark_spec(c, cache_dir);
  q.ranks_a = store.query_ranks(run_a, epoch_a, c.test_split, direction);
  q.ranks_b = store.query_ranks(run_b, epoch_b, c.test_split, direction);
  if (cancel && cancel->load()) throw std::runtime_error("cancelled");
  if (!catalog)
    catalog =
        std::make_shared<const SplitCatalog>(SplitCatalog::open(spec, c.test_split, progress));
  q.catalog = std::move(catalog);
  {
    // The stored ranks number the captions and images of the split the runs were tested on; the
    // file at the same path may hold another split now (a manifest written again since).
    const nlohmann::json now = {
        {"splits", {{c.test_split, split_summary(q.catalog->samples(), q.catalog->root())}}}};
    for (const auto& run : runs) {
      refuse_changed_run_data(run, benchmark_data_label(spec), now, {c.test_split},
                              "Its stored ranks are of the earlier data, so they are not shown "
                              "beside the data as it is now; put the data back as it was to "
                              "browse them.");
    }
  }

  // Stored caption neighbours, if the split's geometry was computed under one of these encoders.
  const std::string dataset = caption_dataset_key(spec, c.test_split);
  std::vector<std::string> encoders{"run:" + std::to_string(run_a) + "@" + std::to_string(epoch_a),
                                    "run:" + std::to_string(run_b) + "@" + std::to_string(epoch_b)};
  {
    // The key `hnclip stats` stores for the default encoder (caption_geometry_job.cpp's form).
    std::error_code ec;
    const auto init = std::filesystem::weakly_canonical(
        std::filesystem::absolute(resolve_init_checkpoint("pretrained")), ec);
    if (!ec) encoders.push_back("init:" + init.string());
  }
  for (const auto& encoder : encoders) {
    if (!store.caption_stats(dataset, encoder)) continue;
    for (const auto& n : store.caption_neighbors(dataset, encoder, -1)) {
      if (n.rank <= kNearTwinNeighbors) q.caption_neighbors[n.caption].push_back(n.neighbor);
    }
    q.neighbors_encoder = encoder;
    break;
  }
  return q;
}

}  // namespace hnclip::gui
