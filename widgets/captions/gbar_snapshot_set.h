#pragma once
// GbarSnapshotSet: everything the Ḡ heatmap shows for one run — its stored snapshots (the same
// fixed training batches at epoch 0 and after every epoch) and the captions of its training split
// (snapshot rows and columns are caption ids of that split), read on a worker thread.
// Plain values (no Qt, no LibTorch) so a QtConcurrent task can build it and the GUI hold it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/split_catalog.h"
#include "store/run_store.h"

namespace hnclip::gui {

struct GbarSnapshotSet {
  int64_t run_id = 0;
  std::string run_name;
  double gamma = 0;
  std::string gbar;                              // "recomputed" (live text encoder) | "frozen"
  std::vector<GbarSnapshotRow> snapshots;        // ordered by epoch, batch
  std::shared_ptr<const SplitCatalog> captions;  // the run's training split; null if unreadable
  std::string captions_error;                    // why `captions` is null ("" when it is not)

  std::vector<int> epochs() const;  // distinct, ascending
  std::vector<int> batches(int epoch) const;
  const GbarSnapshotRow* find(int epoch, int batch) const;
  // A snapshot's caption text, or "caption N" when the split could not be read.
  std::string caption_text(int64_t caption) const;
  std::string caption_image(int64_t caption) const;  // "" when unknown
};

// Reads run `run_id` from the database and its training split through the benchmark its config
// names (cache_dir for the built-in one). Throws StoreError for a database that cannot be opened
// and std::runtime_error for an unknown run; a benchmark that cannot be read is not an error (the
// heatmap is still shown, with captions_error saying why texts are missing).
GbarSnapshotSet load_gbar_snapshot_set(const std::string& database, const std::string& cache_dir,
                                       int64_t run_id);

// The cell of a snapshot under plot coordinates (x = column, y = row; cell (r, c) covers
// [c-0.5, c+0.5] x [r-0.5, r+0.5]); nullopt outside the matrix.
struct GbarCell {
  int row = 0, col = 0;
  int64_t caption_row = 0, caption_col = 0;  // caption ids of the batch
  float value = 0;
  bool diagonal = false;  // masked: a caption against itself
};
std::optional<GbarCell> gbar_cell_at(const GbarSnapshotRow& snapshot, double x, double y);
// The cell of the pair (caption_row, caption_col) in a snapshot, wherever the batch holds them;
// nullopt when it holds either not.
std::optional<GbarCell> gbar_cell_of(const GbarSnapshotRow& snapshot, int64_t caption_row,
                                     int64_t caption_col);

}  // namespace hnclip::gui
