#include "widgets/captions/caption_view_data.h"

#include <nlohmann/json.hpp>

#include "job/caption_geometry_job.h"
#include "job/run_benchmark_spec.h"
#include "store/run_store.h"
#include "train/train_config.h"

namespace hnclip::gui {
namespace {
// Progress share of opening the split (generating the built-in benchmark on first use); the
// geometry takes the rest.
constexpr double kCatalogProgressShare = 0.1;
}  // namespace

std::vector<const hnclip::CaptionNeighborRow*> CaptionViewData::neighbors(int64_t caption) const {
  std::vector<const hnclip::CaptionNeighborRow*> out;
  if (caption < 0 || caption >= static_cast<int64_t>(first_neighbor.size())) return out;
  for (size_t i = first_neighbor[static_cast<size_t>(caption)];
       i < record.neighbors.size() && record.neighbors[i].caption == caption; ++i) {
    out.push_back(&record.neighbors[i]);
  }
  return out;
}

CaptionViewData load_caption_view(const CaptionSource& source, const std::string& database,
                                  const std::string& cache_dir, bool with_catalog,
                                  const std::function<void(double)>& progress,
                                  const std::atomic<bool>* cancel) {
  const auto check_cancel = [cancel] {
    if (cancel && cancel->load()) throw CaptionLoadCancelled{};
  };
  CaptionViewData out;
  out.encoder = source.encoder;
  hnclip::BenchmarkSpec spec = source.benchmark;
  if (spec.cache_dir.empty()) spec.cache_dir = cache_dir;
  double base = 0;
  if (with_catalog) {
    // Opening may generate the built-in benchmark; its progress messages (every few thousand
    // images) are where a cancel can stop that (the half-written folder is removed).
    out.catalog = std::make_shared<const hnclip::SplitCatalog>(hnclip::SplitCatalog::open(
        spec, source.split, [&](const std::string&) { check_cancel(); }));
    out.texts.reserve(static_cast<size_t>(out.catalog->num_captions()));
    for (int64_t c = 0; c < out.catalog->num_captions(); ++c) {
      out.texts.push_back(QString::fromStdString(out.catalog->caption_text(c)));
    }
    base = kCatalogProgressShare;
    if (progress) progress(base);
  }
  check_cancel();

  hnclip::CaptionGeometryRequest request;
  request.benchmark = spec;
  request.split = source.split;
  request.encoder = source.encoder;
  request.device = "cpu";  // the GUI must stay responsive next to a training run on the accelerator
  request.threads = 1;
  request.cancel = cancel;
  if (progress) request.progress = [&](double f) { progress(base + (1.0 - base) * f); };
  hnclip::CaptionGeometryOutcome outcome;
  try {
    outcome = hnclip::caption_geometry_for(request, {database, cache_dir});
  } catch (const hnclip::CaptionGeometryCancelled&) {
    throw CaptionLoadCancelled{};
  }
  out.dataset_key = outcome.dataset_key;
  out.encoder_key = outcome.encoder.key;
  out.computed = outcome.computed;
  out.record = std::move(outcome.record);

  const auto n = static_cast<size_t>(out.record.stats.captions);
  out.hardest.assign(n, 0.0);
  out.first_neighbor.assign(n, out.record.neighbors.size());
  for (size_t i = out.record.neighbors.size(); i-- > 0;) {
    const auto& row = out.record.neighbors[i];
    if (row.caption < 0 || static_cast<size_t>(row.caption) >= n) continue;
    out.first_neighbor[static_cast<size_t>(row.caption)] = i;
    if (row.rank == 1) out.hardest[static_cast<size_t>(row.caption)] = row.cosine;
  }
  return out;
}

std::vector<CaptionRunChoice> load_caption_run_choices(const std::string& database,
                                                       const std::string& cache_dir) {
  std::vector<CaptionRunChoice> out;
  hnclip::RunStore store(database);
  for (const auto& run : store.list_runs()) {
    CaptionRunChoice c;
    c.id = run.id;
    c.name = QString::fromStdString(run.name);
    try {
      const auto config = nlohmann::json::parse(run.config_json).get<hnclip::TrainConfig>();
      c.benchmark = hnclip::run_benchmark_spec(config, cache_dir);
      c.test_split = config.test_split;
    } catch (const std::exception&) {
      continue;  // a run whose configuration cannot be read names no benchmark to show
    }
    c.has_checkpoint = !store.checkpoints(run.id).empty();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace hnclip::gui
