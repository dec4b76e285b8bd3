#pragma once
// Which patch tokens of the model's input a segment's box touches: GOAL's patch term pools the
// image tower's tokens of those patches. The box is in the original image's pixels; the model
// sees the image resized (shorter side to image_size) and centre-cropped (data/image_pipeline.h),
// so the box goes through the same two steps before it meets the patch grid. (GOAL's own code
// scales x and y to the input size independently, which is right only for an image the processor
// squashed rather than cropped; this follows the pipeline the model was actually fed.)
// Threading: free functions without state.

#include <cstdint>
#include <vector>

#include "data/goal_segments.h"

namespace hnclip {

// The 0-based indices (row-major over the image_size / patch_size grid, the class token not
// counted) of every patch the box overlaps by more than a boundary line, for an image of
// image_width x image_height pixels. Empty when the centre crop cuts the box away entirely.
// Throws std::invalid_argument for non-positive sizes or an image_size that patch_size does not
// divide.
std::vector<int64_t> segment_patches(const SegmentBox& box, int image_width, int image_height,
                                     int image_size, int patch_size);

}  // namespace hnclip
