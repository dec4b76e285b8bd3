#pragma once
// make_clip_model: a ClipModel whose random initial weights are fixed by a seed, so that a fresh
// run, its repeat and a checkpoint's shell (weights loaded over it) start from the same tensors.

#include <cstdint>

#include "model/clip_config.h"
#include "model/clip_model.h"

namespace hnclip {

// Builds a randomly initialised model; `seed` fixes the initial weights.
ClipModel make_clip_model(const ClipConfig& config, uint64_t seed);

}  // namespace hnclip
