#pragma once
// Per-epoch aggregates of gradient probes (paper Fig. 4/A8): the fraction of probed batches the
// plain loss already "solves" (< 1e-3), the fraction of exactly-zero fp32 standard gradients,
// medians and interquartile ranges of both gradient norms and of their ratio, median cosine.
// Plain values (no LibTorch): the CLI and the GUI compute it from stored probes.

#include <cstdint>
#include <vector>

#include "train/train_events.h"

namespace hnclip {

struct Quartiles {
  double q1 = 0, median = 0, q3 = 0;  // linear interpolation between order statistics; NaN if empty
};

struct ProbeEpochSummary {
  int epoch = 0;
  int64_t probes = 0;
  double solved_fraction = 0;     // loss_standard < kSolvedLoss
  double zero_grad_fraction = 0;  // grad_norm_standard exactly 0
  Quartiles grad_norm_standard, grad_norm_boosted, grad_ratio;
  double median_grad_cosine = 0;  // over probes where it is defined
};

constexpr double kSolvedLoss = 1e-3;  // paper: a batch is "solved" below this loss

Quartiles quartiles(std::vector<double> values);  // ignores NaN
std::vector<ProbeEpochSummary> summarize_probes(const std::vector<ProbeEvent>& probes);

}  // namespace hnclip
