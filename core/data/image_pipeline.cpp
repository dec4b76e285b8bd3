#include "data/image_pipeline.h"

#include <filesystem>
#include <limits>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "data/benchmark.h"
#include "data/image_file_check.h"
#include "data/jpeg_decoder.h"
#include "data/png_decoder.h"
#include "data/pillow_resize.h"

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

cv::Mat ImagePipeline::decode(const std::string& path) {
  // Checked first so a missing file gets a plain message (and OpenCV prints no warning).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw DataError(path + ": no such image file");
  // IMREAD_COLOR always yields 8-bit BGR: grey is expanded, alpha dropped, 16-bit scaled down.
  // The EXIF orientation is ignored because PIL's Image.open, which CLIP's preprocessing uses,
  // ignores it too (OpenCV would rotate such photos by default).
  // JPEGs and PNGs go through our own libjpeg / libpng readers, which turn the libraries'
  // messages (a truncated or corrupt file) into an error naming the file instead of a bare line
  // on stderr; the rarer formats through OpenCV.
  const std::string format = image_format(path);
  if (format != "JPEG" && format != "PNG") {
    // OpenCV prints its own line on stderr when a BMP / WebP / TIFF ends early; the header check
    // sees that truncation first and names the file instead.
    const std::string problem = image_file_problem(path, std::numeric_limits<int64_t>::max());
    if (!problem.empty()) throw DataError(problem);
  }
  cv::Mat bgr = format == "JPEG" ? decode_jpeg_file(path)
                : format == "PNG"
                    ? decode_png_file(path)
                    : cv::imread(path, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  if (bgr.empty()) throw DataError(path + ": cannot decode image (missing, unreadable or not an image)");
  return bgr;
}

void ImagePipeline::load(const std::string& path, float* chw) const { process(decode(path), chw); }

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

  // Resize and crop in one go: only the crop's pixels of Pillow's bicubic resize are computed.
  const int s = config_.image_size;
  const cv::Size resized = resized_size(bgr.size(), s);
  const cv::Rect crop(crop_offset(resized.width, s), crop_offset(resized.height, s), s, s);
  const cv::Mat cropped = resized == bgr.size() ? bgr(crop) : pillow_resize(bgr, resized, crop);

  const int64_t plane = static_cast<int64_t>(s) * s;
  float* out_r = chw;
  float* out_g = chw + plane;
  float* out_b = chw + 2 * plane;
  for (int y = 0; y < s; ++y) {
    const uint8_t* row = cropped.ptr<uint8_t>(y);
    const int64_t o = static_cast<int64_t>(y) * s;
    for (int x = 0; x < s; ++x) {
      const uint8_t* px = row + 3 * x;  // B, G, R
      out_r[o + x] = px[2] * scale_[0] + offset_[0];
      out_g[o + x] = px[1] * scale_[1] + offset_[1];
      out_b[o + x] = px[0] * scale_[2] + offset_[2];
    }
  }
}

cv::Size ImagePipeline::resized_size(cv::Size image, int image_size) {
  if (image.width <= 0 || image.height <= 0 || image_size <= 0) {
    throw std::invalid_argument("ImagePipeline::resized_size: sizes must be positive");
  }
  const bool tall = image.width <= image.height;  // torchvision: the width is short when square
  const int64_t short_side = tall ? image.width : image.height;
  const int64_t long_side = tall ? image.height : image.width;
  // Integer floor equals Python's int(n * long / short): the quotient's double rounding could
  // only reach the next integer for numerators near 2^53, far beyond image sizes.
  const int new_long = static_cast<int>(image_size * long_side / short_side);
  return tall ? cv::Size(image_size, new_long) : cv::Size(new_long, image_size);
}

int ImagePipeline::crop_offset(int length, int image_size) {
  if (length < image_size) {
    throw std::invalid_argument("ImagePipeline::crop_offset: side " + std::to_string(length) +
                                " is shorter than the crop " + std::to_string(image_size));
  }
  // Python's round(excess / 2) in integers: an odd excess puts the half on the even neighbour
  // (excess 5 -> 2, 7 -> 4), independent of the floating-point rounding mode.
  const int excess = length - image_size;
  const int half = excess / 2;
  return (excess % 2 == 1 && half % 2 == 1) ? half + 1 : half;
}

}  // namespace hnclip
