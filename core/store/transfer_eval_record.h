#pragma once
// A transfer evaluation (schema v8): a run's checkpoint evaluated on another benchmark or split
// than its own test split (cross-domain transfer, paper Tables A7 / A10). One row per direction
// and K; RunStore reads and writes them (store/transfer_store.cpp).

#include <cstdint>
#include <optional>
#include <string>

namespace hnclip {

struct TransferEvalRow {
  int epoch = 0;            // the checkpoint's epoch
  std::string benchmark;    // canonical key of the data (job/transfer_target.h)
  std::string split;        // e.g. "shifted", "test"
  std::string direction;    // "t2i" | "i2t"
  int k = 0;
  double recall = 0;        // percent
  int64_t images = 0;       // the split's size, so a table can say what it averaged over
  int64_t captions = 0;
  // How many of `images` are the run's own training images (the same files): their recall is not
  // transfer. None where not counted (written before schema v10, or the run's data unreadable).
  std::optional<int64_t> training_images;
  int64_t evaluated_at_ms = 0;
};

}  // namespace hnclip
