#pragma once
// What the Retrieval tab reads off the GUI thread: the benchmark split two runs were evaluated on
// (SplitCatalog) and their stored per-query ranks and top-10 ids for one direction and epoch.
// Plain values; load_retrieval_queries opens its own RunStore, so any thread may call it.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/split_catalog.h"
#include "store/run_store.h"

namespace hnclip::gui {

struct RetrievalQueries {
  std::string direction;              // "t2i" | "i2t"
  std::vector<QueryRankRow> ranks_a;  // ordered by query
  std::vector<QueryRankRow> ranks_b;
  std::shared_ptr<const SplitCatalog> catalog;
  // Each caption's nearest other captions (nearest first) from the caption geometry store
  // (`hnclip stats` / the Captions tab), under the first encoder found of: run A's and run B's
  // checkpoints at these epochs, the pretrained starting point. Empty when none is stored.
  std::map<int64_t, std::vector<int64_t>> caption_neighbors;
  std::string neighbors_encoder;  // the encoder key they come from ("" = none)
};

// Neighbours kept per caption for near-twin marks.
constexpr int kNearTwinNeighbors = 5;

// Reads both runs' ranks for `direction` at their epochs, opens the split (generating the
// built-in benchmark when missing; `catalog`, when non-null, is reused instead) and reads stored
// caption neighbours. Throws StoreError / DataError naming what failed, std::runtime_error
// ("cancelled") when *cancel is set — checked before the split is opened; generating the
// built-in benchmark is not interrupted, its messages go to `progress`.
RetrievalQueries load_retrieval_queries(
    const std::string& database, const std::string& cache_dir, int64_t run_a, int epoch_a,
    int64_t run_b, int epoch_b, const std::string& direction,
    std::shared_ptr<const SplitCatalog> catalog, const std::atomic<bool>* cancel = nullptr,
    const std::function<void(const std::string&)>& progress = {});

}  // namespace hnclip::gui
