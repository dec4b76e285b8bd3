#include "model/make_clip_model.h"

#include <torch/torch.h>

namespace hnclip {

ClipModel make_clip_model(const ClipConfig& config, uint64_t seed) {
  // The module's initialisers draw from LibTorch's global generator.
  torch::manual_seed(seed);
  return ClipModel(config);
}

}  // namespace hnclip
