#pragma once
// ProgressPrinter: the CLI's TrainObserver — a few progress lines per epoch on stderr, and a
// per-epoch summary with recall and the saturation figure (fraction of batches whose plain
// InfoNCE loss is below 1e-3, the paper's "solved" batches). Every evaluation's line names its
// split; the epoch's summary goes with the first (the test split, which the trainer evaluates
// before a validation split).

#include <chrono>
#include <cstdint>
#include <ostream>
#include <vector>

#include "train/train_observer.h"

namespace hnclip::cli {

class ProgressPrinter : public TrainObserver {
 public:
  explicit ProgressPrinter(std::ostream& out) : out_(out) {}
  void on_step(const StepEvent& e) override;
  void on_probe(const ProbeEvent& e) override;
  void on_eval(const EvalEvent& e) override;
  void on_status(const StatusEvent& e) override;

 private:
  std::ostream& out_;
  int epoch_ = 0;
  int summarised_epoch_ = -1;  // the epoch whose summary has been printed
  int64_t steps_ = 0, solved_ = 0;
  double loss_sum_ = 0, standard_sum_ = 0;
  double epoch_start_wall_ = 0, last_wall_ = 0;
  std::vector<ProbeEvent> probes_;  // this epoch's
};

}  // namespace hnclip::cli
