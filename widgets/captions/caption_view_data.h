#pragma once
// What the Captions tab shows for one (benchmark split, text encoder): the split's captions and
// image paths (SplitCatalog) and the stored caption geometry — computed and stored first when the
// RunStore has none for the pair. Loading runs on a worker thread (QtConcurrent) with progress
// and a cancel flag; the result is a plain value handed to the GUI thread.
// Also: the stored runs the tab offers as benchmark and encoder sources.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <QString>

#include "data/benchmark_registry.h"
#include "data/split_catalog.h"
#include "store/caption_geometry_record.h"

namespace hnclip::gui {

struct CaptionSource {
  hnclip::BenchmarkSpec benchmark;  // cache_dir filled by the loader when empty
  std::string split = "test";
  std::string encoder = "init:pretrained";  // run:ID | ckpt:PATH | init:PATH
};

struct CaptionViewData {
  std::shared_ptr<const hnclip::SplitCatalog> catalog;  // null when only the geometry was asked for
  std::vector<QString> texts;                           // caption texts (with the catalog)
  hnclip::CaptionGeometryRecord record;
  std::vector<double> hardest;         // per caption: its rank-1 neighbour's cosine
  std::vector<size_t> first_neighbor;  // per caption: index of its first row in record.neighbors
  std::string dataset_key;
  std::string encoder_key;
  std::string encoder;    // as asked for (run:ID, ...)
  bool computed = false;  // false: read from the store

  // One caption's stored neighbours, nearest first (empty when out of range).
  std::vector<const hnclip::CaptionNeighborRow*> neighbors(int64_t caption) const;
};

// Thrown out of load_caption_view when `cancel` became true (nothing was stored).
struct CaptionLoadCancelled {};

// Reads (or computes and stores) the geometry, and with `with_catalog` opens the split. Throws
// CaptionLoadCancelled, or what the core throws (ConfigError, DataError, ...) naming the problem.
CaptionViewData load_caption_view(const CaptionSource& source, const std::string& database,
                                  const std::string& cache_dir, bool with_catalog,
                                  const std::function<void(double)>& progress,
                                  const std::atomic<bool>* cancel);

struct CaptionRunChoice {
  int64_t id = 0;
  QString name;
  hnclip::BenchmarkSpec benchmark;
  std::string test_split;
  bool has_checkpoint = false;
};

// Stored runs, newest first, with the benchmark each trained on. Reads the store: call off the
// GUI thread.
std::vector<CaptionRunChoice> load_caption_run_choices(const std::string& database,
                                                       const std::string& cache_dir);

}  // namespace hnclip::gui
