#pragma once
// ImagePipeline: turns one image into the model's input — decode, BGR->RGB, resize the shorter
// side to image_size, centre-crop image_size x image_size, scale to [0,1], normalise per channel —
// written as float CHW into a buffer the caller owns (a slice of a batch tensor, so no copies).
// Matches OpenAI CLIP's preprocessing (torchvision Resize + CenterCrop + Normalize).
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
  // Same for an image already in memory (e.g. rendered): 8-bit, 1 (grey), 3 (BGR) or 4 (BGRA)
  // channels. Throws std::invalid_argument for any other type or an empty image.
  void process(const cv::Mat& image, float* chw) const;

 private:
  ImagePipelineConfig config_;
  std::array<float, 3> scale_;   // 1 / (255 * std): 8-bit value -> normalised, with offset_
  std::array<float, 3> offset_;  // -mean / std
};

}  // namespace hnclip
