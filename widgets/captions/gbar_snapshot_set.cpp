#include "widgets/captions/gbar_snapshot_set.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "job/run_benchmark_spec.h"
#include "train/train_config.h"

namespace hnclip::gui {

std::vector<int> GbarSnapshotSet::epochs() const {
  std::vector<int> out;
  for (const auto& s : snapshots) out.push_back(s.epoch);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int> GbarSnapshotSet::batches(int epoch) const {
  std::vector<int> out;
  for (const auto& s : snapshots)
    if (s.epoch == epoch) out.push_back(s.batch);
  std::sort(out.begin(), out.end());
  return out;
}

const GbarSnapshotRow* GbarSnapshotSet::find(int epoch, int batch) const {
  for (const auto& s : snapshots)
    if (s.epoch == epoch && s.batch == batch) return &s;
  return nullptr;
}

std::string GbarSnapshotSet::caption_text(int64_t caption) const {
  if (captions && caption >= 0 && caption < captions->num_captions())
    return captions->caption_text(caption);
  return "caption " + std::to_string(caption);
}

std::string GbarSnapshotSet::caption_image(int64_t caption) const {
  if (captions && caption >= 0 && caption < captions->num_captions())
    return captions->caption_image_path(caption);
  return {};
}

GbarSnapshotSet load_gbar_snapshot_set(const std::string& database, const std::string& cache_dir,
                                       int64_t run_id) {
  GbarSnapshotSet set;
  set.run_id = run_id;
  TrainConfig config;
  {
    RunStore store(database);
    const auto run = store.find_run(run_id);
    if (!run) throw std::runtime_error("no run " + std::to_string(run_id) + " in " + database);
    set.run_name = run->name;
    from_json(nlohmann::json::parse(run->config_json), config);
    set.snapshots = store.gbar_snapshots(run_id);
  }
  set.gamma = config.loss_gamma;
  set.gbar = to_string(gbar_in_effect(config));
  try {
    set.captions = std::make_shared<const SplitCatalog>(
        SplitCatalog::open(run_benchmark_spec(config, cache_dir), config.train_split));
  } catch (const std::exception& e) {
    set.captions_error = e.what();
  }
  return set;
}

std::optional<GbarCell> gbar_cell_at(const GbarSnapshotRow& snapshot, double x, double y) {
  const auto n = static_cast<int64_t>(snapshot.captions.size());
  if (!std::isfinite(x) || !std::isfinite(y)) return std::nullopt;
  const auto col = static_cast<int64_t>(std::floor(x + 0.5));
  const auto row = static_cast<int64_t>(std::floor(y + 0.5));
  if (row < 0 || col < 0 || row >= n || col >= n) return std::nullopt;
  if (snapshot.matrix.size() != static_cast<size_t>(n * n)) return std::nullopt;
  GbarCell cell;
  cell.row = static_cast<int>(row);
  cell.col = static_cast<int>(col);
  cell.caption_row = snapshot.captions[static_cast<size_t>(row)];
  cell.caption_col = snapshot.captions[static_cast<size_t>(col)];
  cell.value = snapshot.matrix[static_cast<size_t>(row * n + col)];
  cell.diagonal = row == col;
  return cell;
}

std::optional<GbarCell> gbar_cell_of(const GbarSnapshotRow& snapshot, int64_t caption_row,
                                     int64_t caption_col) {
  const auto& ids = snapshot.captions;
  const auto row = std::find(ids.begin(), ids.end(), caption_row);
  const auto col = std::find(ids.begin(), ids.end(), caption_col);
  if (row == ids.end() || col == ids.end()) return std::nullopt;
  return gbar_cell_at(snapshot, static_cast<double>(col - ids.begin()),
                      static_cast<double>(row - ids.begin()));
}

}  // namespace hnclip::gui
