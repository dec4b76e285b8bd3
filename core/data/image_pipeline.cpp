#include "data/image_pipeline.h"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "data/benchmark.h"

namespace hnclip {

ImagePipeline::ImagePipeline(const ImagePipelineConfig& config) : config_(config) {
  if (config_.image_size <= 0) {
    throw std::invalid_argument("ImagePipeline: image_size must be positive, got " +
                                std::to_string(config_.image_size));
  }
  for (int c = 0; c < 3; ++c) {
    if (!(config_.std[c] > 0.0f)) {
      throw std::invalid_argument("ImagePipeline: std must be positive in every channel");
    }
    scale_[c] = 1.0f / (255.0f * config_.std[c]);
    offset_[c] = -config_.mean[c] / config_.std[c];
  }
}

int64_t ImagePipeline::floats_per_image() const {
  const int64_t s = config_.image_size;
  return 3 * s * s;
}

void ImagePipeline::load(const std::string& path, float* chw) const {
  // Checked first so a missing file gets a plain message (and OpenCV prints no warning).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw DataError(path + ": no such image file");
  // IMREAD_COLOR always yields 8-bit BGR: grey is expanded, alpha dropped, 16-bit scaled down.
  cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR);
  if (bgr.empty()) throw DataError(path + ": cannot decode image (missing, unreadable or not an image)");
  process(bgr, chw);
}

void ImagePipeline::process(const cv::Mat& image, float* chw) const {
  if (image.empty() || image.depth() != CV_8U ||
      (image.channels() != 1 && image.channels() != 3 && image.channels() != 4)) {
    throw std::invalid_argument("ImagePipeline: expected a non-empty 8-bit grey, BGR or BGRA image");
  }
  cv::Mat bgr;
  if (image.channels() == 1) {
    cv::cvtColor(image, bgr, cv::COLOR_GRAY2BGR);
  } else if (image.channels() == 4) {
    cv::cvtColor(image, bgr, cv::COLOR_BGRA2BGR);
  } else {
    bgr = image;
  }

  // Shorter side -> S, longer side -> floor(S * long / short), exactly like torchvision's Resize(S)
  // that CLIP's preprocessing uses, so crops line up with the Python reference.
  const int s = config_.image_size;
  const int w = bgr.cols;
  const int h = bgr.rows;
  const bool wide = w >= h;
  const int short_side = wide ? h : w;
  const int long_side = wide ? w : h;
  const int new_long = static_cast<int>(static_cast<int64_t>(s) * long_side / short_side);
  const int new_w = wide ? new_long : s;
  const int new_h = wide ? s : new_long;
  cv::Mat resized;
  if (new_w == w && new_h == h) {
    resized = bgr;
  } else {
    // Cubic when enlarging (smooth, like PIL bicubic); area averaging when shrinking (no aliasing).
    const int interpolation = short_side < s ? cv::INTER_CUBIC : cv::INTER_AREA;
    cv::resize(bgr, resized, cv::Size(new_w, new_h), 0, 0, interpolation);
  }

  // Centre crop with torchvision's offsets: Python's round(), i.e. halves to even (nearbyint in
  // the default rounding mode), so a 1-pixel excess is cropped from the end like the reference.
  const int top = static_cast<int>(std::nearbyint((new_h - s) / 2.0));
  const int left = static_cast<int>(std::nearbyint((new_w - s) / 2.0));

  const int64_t plane = static_cast<int64_t>(s) * s;
  float* out_r = chw;
  float* out_g = chw + plane;
  float* out_b = chw + 2 * plane;
  for (int y = 0; y < s; ++y) {
    const uint8_t* row = resized.ptr<uint8_t>(top + y) + 3 * left;
    const int64_t o = static_cast<int64_t>(y) * s;
    for (int x = 0; x < s; ++x) {
      const uint8_t* px = row + 3 * x;  // B, G, R
      out_r[o + x] = px[2] * scale_[0] + offset_[0];
      out_g[o + x] = px[1] * scale_[1] + offset_[1];
      out_b[o + x] = px[0] * scale_[2] + offset_[2];
    }
  }
}

}  // namespace hnclip
