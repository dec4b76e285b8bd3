#include "train/framework.h"

namespace hnclip {

std::string long_clip_short_caption(const std::string& caption) {
  const auto end = caption.find(". ");
  return end == std::string::npos ? caption : caption.substr(0, end);
}

bool needs_derived_captions(Framework framework) {
  return framework == Framework::kLongClip || framework == Framework::kDebias;
}

bool tokenizes_new_text(Framework framework) {
  return needs_derived_captions(framework) || framework == Framework::kStructxlip;
}

bool needs_structure_maps(Framework framework) { return framework == Framework::kStructxlip; }

double framework_start_logit_scale(Framework framework) {
  // Long-CLIP's train.py sets logit_scale to log(100) before fine-tuning; DeBias-CLIP trains
  // with Long-CLIP's code.
  return framework == Framework::kLongClip || framework == Framework::kDebias ? 100.0 : 0.0;
}

}  // namespace hnclip
