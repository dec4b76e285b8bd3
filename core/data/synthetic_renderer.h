#pragma once
// SyntheticRenderer: draws a Scene of the built-in benchmark into a BGR image with OpenCV.
// The image is split into a 3x3 grid; each object is centred in its cell. At the default 48x48
// (16-px cells) a small object has radius 3.5 px and a large one 6.5 px; a hollow object is an
// outline about 2 px wide (1.25 px for small objects, so that their hole stays visible).
// Drawing is anti-aliased and deterministic (same scene, same bytes).
// Threading: render() is const and safe to call from several threads.

#include <opencv2/core.hpp>

#include "data/synthetic_scene.h"

namespace hnclip {

// The BGR value a colour or background is painted with (palette chosen so that every colour is
// far from every background and from every other colour).
cv::Scalar scene_bgr(SceneColour c);
cv::Scalar scene_bgr(SceneBackground b);

// The `shifted` split's light: every pixel's blue, green and red scaled by 0.55, 0.7 and 0.85 —
// a dim, warm light (as under tungsten) that moves every colour and background the captions name
// away from the values any other split shows, without changing which word fits best.
void shift_lighting(cv::Mat& bgr);

class SyntheticRenderer {
 public:
  static constexpr int kDefaultImageSize = 48;  // pixels per side; 16-px cells

  // Throws std::invalid_argument unless image_size is a positive multiple of 3 of at least 24.
  explicit SyntheticRenderer(int image_size = kDefaultImageSize);

  int image_size() const { return image_size_; }

  // A new image_size x image_size CV_8UC3 (BGR) image of the scene.
  cv::Mat render(const Scene& scene) const;

 private:
  void draw_object(cv::Mat& img, const SceneObject& o, const cv::Scalar& background) const;

  int image_size_;
};

}  // namespace hnclip
