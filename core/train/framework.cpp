#include "train/framework.h"

namespace hnclip {

std::string long_clip_short_caption(const std::string& caption) {
  const auto end = caption.find(". ");
  return end == std::string::npos ? caption : caption.substr(0, end);
}

bool needs_short_captions(Framework framework) { return framework == Framework::kLongClip; }

double framework_start_logit_scale(Framework framework) {
  // Long-CLIP's train.py sets logit_scale to log(100) before fine-tuning.
  return framework == Framework::kLongClip ? 100.0 : 0.0;
}

}  // namespace hnclip
