#pragma once
// A run's transfer evaluations (`eval --split/--benchmark/--data`, `experiment eval`) as the
// store keeps them, one row per (data, split, epoch, direction, K), grouped into one entry per
// (data, split, epoch) with both directions' recall at every K: what `show` lists and the Runs
// tab's Transfer page shows. Plain values: any thread.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/transfer_eval_record.h"
#include "train/train_config.h"

namespace hnclip {

struct TransferEvaluation {
  std::string benchmark;  // the data's canonical key (job/run_benchmark_spec.h benchmark_data_key)
  std::string split;
  int epoch = 0;  // the evaluated checkpoint's
  int64_t images = 0;
  int64_t captions = 0;
  // The run's own data and its training split: a recall of images it trained on, not transfer.
  bool training_split = false;
  // How many of `images` the run trained on, counted when it was evaluated (none: not counted).
  std::optional<int64_t> training_images;
  int64_t evaluated_at_ms = 0;
  std::map<std::string, std::map<int, double>> recall;  // direction → K → percent
};

bool operator==(const TransferEvaluation& a, const TransferEvaluation& b);
inline bool operator!=(const TransferEvaluation& a, const TransferEvaluation& b) {
  return !(a == b);
}

// `rows` in the store's order (transfer_evals); `config` the run's, nullptr when it cannot be read
// (then no entry is marked as its training split).
std::vector<TransferEvaluation> group_transfer_evaluations(const std::vector<TransferEvalRow>& rows,
                                                           const TrainConfig* config);

}  // namespace hnclip
