#include "widgets/retrieval/retrieval_data.h"

#include <filesystem>

#include "job/caption_geometry_job.h"
#include "job/run_benchmark_spec.h"
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
  std::string config_json, split;
  RunStore store(database);
  {
    const auto run = store.find_run(run_a);
    if (!run) throw StoreError(database + ": run " + std::to_string(run_a) + " does not exist");
    config_json = run->config_json;
    split = parse_train_config(config_json).test_split;
    q.ranks_a = store.query_ranks(run_a, epoch_a, split, direction);
    q.ranks_b = store.query_ranks(run_b, epoch_b, split, direction);
  }
  if (cancel && cancel->load()) throw std::runtime_error("cancelled");
  if (!catalog) {
    const TrainConfig c = parse_train_config(config_json);
    catalog = std::make_shared<const SplitCatalog>(
        SplitCatalog::open(run_benchmark_spec(c, cache_dir), c.test_split, progress));
  }
  q.catalog = std::move(catalog);

  // Stored caption neighbours, if the split's geometry was computed under one of these encoders.
  const TrainConfig c = parse_train_config(config_json);
  const std::string dataset = caption_dataset_key(run_benchmark_spec(c, cache_dir), c.test_split);
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
