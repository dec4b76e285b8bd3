#pragma once
// Learning-rate schedule: linear warm-up to the base rate, then cosine decay to zero.

#include <cstdint>

namespace hnclip {

struct LrSchedule {
  double base_lr = 0;
  int64_t warmup_steps = 0;
  int64_t total_steps = 0;
  // Rate for the step with 0-based index `step` (the step about to be taken).
  double at(int64_t step) const;
};

}  // namespace hnclip
