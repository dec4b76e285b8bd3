#include "data/segment_patches.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "data/image_pipeline.h"

namespace hnclip {

namespace {

// Box edges that land on a patch boundary up to rounding (integer boxes times a resize factor)
// count as on it: a box ending exactly at x = 16 does not touch the patch that starts there.
constexpr double kEdgeTolerance = 1e-9;

}  // namespace

std::vector<int64_t> segment_patches(const SegmentBox& box, int image_width, int image_height,
                                     int image_size, int patch_size) {
  if (image_width <= 0 || image_height <= 0 || image_size <= 0 || patch_size <= 0 ||
      image_size % patch_size != 0) {
    throw std::invalid_argument("segment_patches: sizes must be positive and the patch size (" +
                                std::to_string(patch_size) + ") must divide the input size (" +
                                std::to_string(image_size) + ")");
  }
  const cv::Size resized = ImagePipeline::resized_size({image_width, image_height}, image_size);
  const double sx = static_cast<double>(resized.width) / image_width;
  const double sy = static_cast<double>(resized.height) / image_height;
  const double ox = ImagePipeline::crop_offset(resized.width, image_size);
  const double oy = ImagePipeline::crop_offset(resized.height, image_size);
  const double s = image_size;
  // The box in the model input's pixels, clipped to the crop.
  const double x1 = std::clamp(box.x1 * sx - ox, 0.0, s), x2 = std::clamp(box.x2 * sx - ox, 0.0, s);
  const double y1 = std::clamp(box.y1 * sy - oy, 0.0, s), y2 = std::clamp(box.y2 * sy - oy, 0.0, s);
  const int grid = image_size / patch_size;
  const int px1 = static_cast<int>(std::floor(x1 / patch_size + kEdgeTolerance));
  const int py1 = static_cast<int>(std::floor(y1 / patch_size + kEdgeTolerance));
  const int px2 = std::min(grid, static_cast<int>(std::ceil(x2 / patch_size - kEdgeTolerance)));
  const int py2 = std::min(grid, static_cast<int>(std::ceil(y2 / patch_size - kEdgeTolerance)));
  std::vector<int64_t> out;
  for (int py = py1; py < py2; ++py) {
    for (int px = px1; px < px2; ++px) out.push_back(static_cast<int64_t>(py) * grid + px);
  }
  return out;
}

}  // namespace hnclip
