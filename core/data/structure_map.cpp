#include "data/structure_map.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace hnclip {

namespace {

constexpr int kChannelsGrey = 1;  // channel counts the map accepts: grey, BGR, BGRA
constexpr int kChannelsBgr = 3;
constexpr int kChannelsBgra = 4;

void check_non_negative(double value, const char* name) {
  if (!std::isfinite(value) || value < 0.0) {
    throw std::invalid_argument(std::string("structure_map: ") + name +
                                " must be finite and non-negative, got " + std::to_string(value));
  }
}

void check_options(const StructureMapOptions& o) {
  check_non_negative(o.low_threshold, "low_threshold");
  check_non_negative(o.high_threshold, "high_threshold");
  check_non_negative(o.blur_sigma, "blur_sigma");
  // cv::Canny would silently swap them; a swapped pair is more likely a mistake than a wish.
  if (o.low_threshold > o.high_threshold) {
    throw std::invalid_argument("structure_map: low_threshold " + std::to_string(o.low_threshold) +
                                " is above high_threshold " + std::to_string(o.high_threshold));
  }
  if (o.aperture != 3 && o.aperture != 5 && o.aperture != 7) {
    throw std::invalid_argument("structure_map: aperture must be 3, 5 or 7, got " +
                                std::to_string(o.aperture));
  }
}

}  // namespace

cv::Mat structure_map(const cv::Mat& bgr, const StructureMapOptions& options) {
  if (bgr.empty()) throw std::invalid_argument("structure_map: the image is empty");
  if (bgr.depth() != CV_8U) {
    throw std::invalid_argument("structure_map: expected an 8-bit image, got " +
                                cv::typeToString(bgr.type()));
  }
  const int channels = bgr.channels();
  if (channels != kChannelsGrey && channels != kChannelsBgr && channels != kChannelsBgra) {
    throw std::invalid_argument(
        "structure_map: expected 1 (grey), 3 (BGR) or 4 (BGRA) channels, got " +
        std::to_string(channels));
  }
  check_options(options);

  // The image tower never sees alpha (ImagePipeline::process drops it), so neither do its edges.
  cv::Mat src = bgr;
  if (channels == kChannelsBgra) cv::cvtColor(bgr, src, cv::COLOR_BGRA2BGR);
  if (options.blur_sigma > 0.0) {
    // Into a new Mat: `src` may share the caller's pixels. Replicated borders like Canny's Sobel,
    // so that a flat image stays flat up to its edges. OpenCV's 8-bit Gaussian is bit-exact.
    cv::Mat blurred;
    cv::GaussianBlur(src, blurred, cv::Size(), options.blur_sigma, options.blur_sigma,
                     cv::BORDER_REPLICATE);
    src = blurred;
  }
  // Multi-channel input: per pixel, Canny uses the channel with the strongest gradient. A grey
  // image is one such channel, so it gives the same edges as its BGR conversion.
  cv::Mat edges;
  cv::Canny(src, edges, options.low_threshold, options.high_threshold, options.aperture,
            options.l2_gradient);
  cv::Mat out;
  cv::cvtColor(edges, out, cv::COLOR_GRAY2BGR);
  return out;
}

}  // namespace hnclip
