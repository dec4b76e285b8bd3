#pragma once
// ImagePipeline: turns one image into the model's input — decode, BGR->RGB, resize the shorter
// side to image_size, centre-crop image_size x image_size, scale to [0,1], normalise per channel —
// written as float CHW into a buffer the caller owns (a slice of a batch tensor, so no copies).
// Matches OpenAI CLIP's preprocessing (torchvision Resize(n, BICUBIC) + CenterCrop(n) + ToTensor +
// Normalize on a PIL image): the resize is Pillow's bicubic (pillow_resize.h), pixel for pixel,
// for 8-bit RGB and grey images; like PIL's Image.open, files are decoded without applying their
// EXIF orientation. Not matched: images with alpha (OpenCV drops alpha, Pillow resizes
// premultiplied RGBA) and palette images (Pillow resizes "P" with NEAREST).
// Threading: immutable after construction; all methods are const and safe to call concurrently.

#include <array>
#include <cstdint>
#include <string>

#include <opencv2/core/mat.hpp>

namespace hnclip {

struct ImagePipelineConfig {
  int image_size = 48;  // side of the square model input, in pixels
  // Per-channel (R, G, B) mean and standard deviation of OpenAI CLIP's training images.
  std::array<float, 3> mean = {0.48145466f, 0.4578275f, 0.40821073f};
  std::array<float, 3> std = {0.26862954f, 0.26130258f, 0.27577711f};
};

class ImagePipeline {
 public:
  // Throws std::invalid_argument for a non-positive image_size or a non-positive std.
  explicit ImagePipeline(const ImagePipelineConfig& config = {});

  const ImagePipelineConfig& config() const { return config_; }
  // Floats one image occupies in the output: 3 * image_size * image_size.
  int64_t floats_per_image() const;

  // Decodes the file at `path` and writes it into `chw` (floats_per_image() floats).
  // Throws DataError naming the path when the file cannot be decoded.
  void load(const std::string& path, float* chw) const;
  // The file's pixels as load() reads them (8-bit BGR, orientation ignored), for a caller that
  // cuts the image first (GOAL's crops). Throws DataError naming the path.
  static cv::Mat decode(const std::string& path);
  // Same for an image already in memory (e.g. rendered): 8-bit, 1 (grey), 3 (BGR) or 4 (BGRA)
  // channels. Throws std::invalid_argument for any other type or an empty image.
  void process(const cv::Mat& image, float* chw) const;

  // torchvision's Resize(image_size) output for an image of `image`'s size: the shorter side
  // (the width when square) becomes image_size, the longer int(image_size * long / short).
  static cv::Size resized_size(cv::Size image, int image_size);
  // torchvision's CenterCrop offset along a side of `length` >= image_size:
  // int(round((length - image_size) / 2.0)) with Python's round (halves to even).
  static int crop_offset(int length, int image_size);

 private:
  ImagePipelineConfig config_;
  std::array<float, 3> scale_;   // 1 / (255 * std): 8-bit value -> normalised, with offset_
  std::array<float, 3> offset_;  // -mean / std
};

}  // namespace hnclip
