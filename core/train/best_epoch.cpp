#include "train/best_epoch.h"

#include <cmath>

namespace hnclip {

double best_epoch_score(double r1_t2i, double r1_i2t) {
  if (std::isnan(r1_t2i)) return r1_i2t;
  if (std::isnan(r1_i2t)) return r1_t2i;
  return 0.5 * (r1_t2i + r1_i2t);
}

bool BestEpochSelector::offer(int epoch, double score) {
  if (epoch <= kStartEpoch || std::isnan(score) || !(score > score_)) return false;
  epoch_ = epoch;
  score_ = score;
  return true;
}

}  // namespace hnclip
