#pragma once
// Mean training loss of one epoch from a run's step events: the "did the loss fall" check that
// trainer tests share.

#include <vector>

#include "train/train_events.h"

namespace hnclip::test {

inline double mean_loss(const std::vector<StepEvent>& steps, int epoch) {
  double sum = 0;
  int n = 0;
  for (const auto& s : steps)
    if (s.epoch == epoch) { sum += s.loss; ++n; }
  return sum / n;
}

}  // namespace hnclip::test
