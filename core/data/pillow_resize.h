#pragma once
// pillow_resize: resizes an 8-bit image with the same pixels as Pillow's
// Image.resize((w, h), Image.BICUBIC) — the resampling OpenAI CLIP was trained with (torchvision's
// Resize on a PIL image calls it). OpenCV's INTER_CUBIC samples the source without widening the
// kernel when shrinking, so it aliases where Pillow averages; the two differ by far more than the
// model tolerates (see tests/core/data/test_pillow_resize.cpp), hence this re-implementation.
//
// What Pillow does, and this does identically (Pillow 9.4, src/libImaging/Resample.c):
// - a separable convolution with the bicubic kernel (a = -0.5, support 2), widened by the scale
//   factor when shrinking (support = 2 * in / out), so shrinking antialiases;
// - the horizontal pass first (into an 8-bit intermediate holding only the rows the vertical pass
//   reads), then the vertical one; a pass whose size does not change is skipped;
// - per output position, weights normalised to sum 1, then turned into 22-bit fixed point and
//   accumulated in 32-bit integers with rounding, clamped to 0..255 after each pass.
// Pillow's `reducing_gap` pre-reduction is not used by Image.resize's default (nor by torchvision),
// so it is not part of this.
//
// Channels are resampled independently, so channel order (BGR/RGB) does not matter. Images with
// alpha are not premultiplied here (Pillow premultiplies "RGBA"); callers that need Pillow's RGBA
// behaviour must premultiply themselves.
// Threading: pure functions, safe to call concurrently.

#include <opencv2/core/mat.hpp>

namespace hnclip {

// `src` resized to `size` (width, height), same type as `src`. Accepts CV_8UC1..CV_8UC4 (any
// step, e.g. an ROI). Throws std::invalid_argument for another type, an empty image or a
// non-positive size.
cv::Mat pillow_resize(const cv::Mat& src, cv::Size size);

// Only the `window` (in output coordinates, inside (0, 0, size)) of pillow_resize(src, size):
// the same pixels, computed without the rest — what a resize followed by a crop needs.
// Throws std::invalid_argument as above, or when `window` is empty or not inside the output.
cv::Mat pillow_resize(const cv::Mat& src, cv::Size size, cv::Rect window);

}  // namespace hnclip
