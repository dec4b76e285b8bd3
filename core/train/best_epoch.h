#pragma once
// The one rule that picks a run's best epoch, shared by the trainer, the resume path, the CLI and
// every GUI table: the fine-tuned epoch (>= 1) with the highest mean test R@1 over both
// directions, the earlier epoch on ties. Epoch 0 is the starting checkpoint's score: it is shown
// as "start", never as a best, so a run whose fine-tuning lost accuracy cannot look as good as its
// start. Plain values (no LibTorch, no Qt): any thread, any library.

#include <limits>

namespace hnclip {

constexpr int kStartEpoch = 0;  // the evaluation before the first step

// Mean R@1 of the two directions (either in any unit); the other one when one is NaN (a run
// evaluated in one direction only); NaN when both are.
double best_epoch_score(double r1_t2i, double r1_i2t);

// True when `score` is above `best` by more than rounding (see best_epoch.cpp): the one
// comparison behind every "best" of mean R@1 values — a run's epochs, an experiment's strongest
// control — so equal hits never make the later candidate win. Never for a NaN score.
bool score_beats(double score, double best);

class BestEpochSelector {
 public:
  BestEpochSelector() = default;
  // Resuming: the best of the epochs already kept (epoch -1 = none yet).
  BestEpochSelector(int epoch, double score) : epoch_(epoch), score_(score) {}

  // Offers one evaluated epoch; true when it becomes the best. Epoch 0 and NaN scores never do,
  // and an equal score keeps the earlier epoch (equal to within rounding: see best_epoch.cpp).
  bool offer(int epoch, double score);

  int epoch() const { return epoch_; }     // -1: no fine-tuned epoch evaluated yet
  double score() const { return score_; }  // -inf while epoch() is -1

 private:
  int epoch_ = -1;
  double score_ = -std::numeric_limits<double>::infinity();
};

}  // namespace hnclip
