#include "job/stored_transfer_evaluations.h"

#include "job/run_benchmark_spec.h"

namespace hnclip {

bool operator==(const TransferEvaluation& a, const TransferEvaluation& b) {
  return a.benchmark == b.benchmark && a.split == b.split && a.epoch == b.epoch &&
         a.images == b.images && a.captions == b.captions && a.training_split == b.training_split &&
         a.training_images == b.training_images && a.evaluated_at_ms == b.evaluated_at_ms &&
         a.recall == b.recall;
}

std::vector<TransferEvaluation> group_transfer_evaluations(const std::vector<TransferEvalRow>& rows,
                                                           const TrainConfig* config) {
  // The key of the run's own data, without a cache folder: the built-in benchmark's key does not
  // depend on where it is cached.
  std::vector<TransferEvaluation> out;
  if (rows.empty()) return out;
  const std::string own_data = config ? benchmark_data_key(run_benchmark_spec(*config, "")) : "";
  for (const auto& row : rows) {
    if (out.empty() || out.back().benchmark != row.benchmark || out.back().split != row.split ||
        out.back().epoch != row.epoch) {
      TransferEvaluation e;
      e.benchmark = row.benchmark;
      e.split = row.split;
      e.epoch = row.epoch;
      e.images = row.images;
      e.captions = row.captions;
      e.training_split = config && row.benchmark == own_data && row.split == config->train_split;
      e.training_images = row.training_images;
      e.evaluated_at_ms = row.evaluated_at_ms;
      out.push_back(std::move(e));
    }
    out.back().recall[row.direction][row.k] = row.recall;
  }
  return out;
}

}  // namespace hnclip
