#include "train/best_epoch.h"

#include <cmath>

namespace hnclip {

double best_epoch_score(double r1_t2i, double r1_i2t) {
  if (std::isnan(r1_t2i)) return r1_i2t;
  if (std::isnan(r1_i2t)) return r1_t2i;
  return 0.5 * (r1_t2i + r1_i2t);
}

// Recall is 100·hits/N per direction, so two epochs with the same hits over both directions can
// score differently in the last bit (N = 142: 58 + 142 hits gives 70.4225352112676, 59 + 141
// gives 70.42253521126761); such an epoch is a tie, not better. A real difference is at least
// 50/N in percent (0.5/N as a fraction), far above this margin for any N below 10^8.
constexpr double kTieMargin = 1e-9;

bool score_beats(double score, double best) {
  if (std::isnan(score)) return false;
  if (!std::isfinite(best)) return score > best;
  return score > best + kTieMargin * std::abs(best);
}

bool BestEpochSelector::offer(int epoch, double score) {
  if (epoch <= kStartEpoch || std::isnan(score)) return false;
  if (epoch_ >= 0 && !score_beats(score, score_)) return false;
  epoch_ = epoch;
  score_ = score;
  return true;
}

}  // namespace hnclip
