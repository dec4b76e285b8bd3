#include "data/synthetic_renderer.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace hnclip {

namespace {

constexpr int kMinImageSize = 24;                // below this a small hollow shape is a blob
constexpr double kSmallRadius = 3.5 / 16.0;      // radius as a fraction of the cell side
constexpr double kLargeRadius = 6.5 / 16.0;
constexpr double kLargeOutline = 2.0 / 16.0;     // outline width of a hollow large object
constexpr double kSmallOutline = 1.25 / 16.0;    // thinner for small ones so a hole remains
constexpr double kSquareHalfSide = 0.88;         // square half side / radius: similar area to circle
constexpr double kCrossHalfWidth = 0.42;         // cross arm half width / radius
constexpr double kTriangleCentreDrop = 0.18;     // shift down (× radius) to centre a triangle's mass
constexpr int kShift = 4;                        // fractional bits for OpenCV's sub-pixel drawing
constexpr double kScale = 1 << kShift;

cv::Point fixed(double x, double y) {
  return {static_cast<int>(std::lround(x * kScale)), static_cast<int>(std::lround(y * kScale))};
}

// Fills a polygon (vertices in pixel coordinates) with sub-pixel precision.
void fill_polygon(cv::Mat& img, const std::vector<cv::Point2d>& pts, const cv::Scalar& colour) {
  std::vector<cv::Point> fp;
  fp.reserve(pts.size());
  for (const auto& p : pts) fp.push_back(fixed(p.x, p.y));
  cv::fillConvexPoly(img, fp, colour, cv::LINE_AA, kShift);
}

// Fills the shape of `radius` around (cx, cy); `inset` shrinks it by that many pixels on every
// side (the hole of a hollow shape is the same shape inset by the outline width).
void fill_shape(cv::Mat& img, SceneShape shape, double cx, double cy, double radius, double inset,
                const cv::Scalar& colour) {
  switch (shape) {
    case SceneShape::Circle: {
      const double r = radius - inset;
      if (r <= 0) return;
      cv::circle(img, fixed(cx, cy), static_cast<int>(std::lround(r * kScale)), colour, cv::FILLED, cv::LINE_AA,
                 kShift);
      return;
    }
    case SceneShape::Square: {
      const double h = radius * kSquareHalfSide - inset;
      if (h <= 0) return;
      fill_polygon(img, {{cx - h, cy - h}, {cx + h, cy - h}, {cx + h, cy + h}, {cx - h, cy + h}}, colour);
      return;
    }
    case SceneShape::Triangle: {
      // Upward equilateral triangle with circumradius 1.2 r; insetting by d shrinks the
      // circumradius by 2d (the inradius is half the circumradius).
      const double R = radius * 1.2 - 2.0 * inset;
      if (R <= 0) return;
      const double y0 = cy + radius * kTriangleCentreDrop;
      const double s = std::sqrt(3.0) / 2.0;
      fill_polygon(img, {{cx, y0 - R}, {cx + R * s, y0 + R / 2}, {cx - R * s, y0 + R / 2}}, colour);
      return;
    }
    case SceneShape::Cross: {
      const double len = radius - inset;
      const double w = radius * kCrossHalfWidth - inset;
      if (len <= 0 || w <= 0) return;
      fill_polygon(img, {{cx - len, cy - w}, {cx + len, cy - w}, {cx + len, cy + w}, {cx - len, cy + w}}, colour);
      fill_polygon(img, {{cx - w, cy - len}, {cx + w, cy - len}, {cx + w, cy + len}, {cx - w, cy + len}}, colour);
      return;
    }
  }
}

}  // namespace

cv::Scalar scene_bgr(SceneColour c) {
  static const cv::Scalar bgr[kSceneColourCount] = {
      {40, 40, 220},   // red
      {0, 140, 255},   // orange
      {0, 230, 230},   // yellow
      {40, 170, 40},   // green
      {220, 210, 0},   // cyan
      {220, 60, 30},   // blue
      {170, 40, 150},  // purple
      {20, 60, 140},   // brown
  };
  return bgr[static_cast<int>(c)];
}

cv::Scalar scene_bgr(SceneBackground b) {
  static const cv::Scalar bgr[kSceneBackgroundCount] = {
      {20, 20, 20},     // black
      {110, 110, 110},  // grey
      {240, 240, 240},  // white
  };
  return bgr[static_cast<int>(b)];
}

SyntheticRenderer::SyntheticRenderer(int image_size) : image_size_(image_size) {
  if (image_size < kMinImageSize || image_size % kSceneGridSide != 0) {
    throw std::invalid_argument("SyntheticRenderer: image_size " + std::to_string(image_size) +
                                " must be a multiple of 3 and at least " + std::to_string(kMinImageSize));
  }
}

void shift_lighting(cv::Mat& bgr) { cv::multiply(bgr, cv::Scalar(0.55, 0.7, 0.85), bgr); }

cv::Mat SyntheticRenderer::render(const Scene& scene) const {
  const cv::Scalar background = scene_bgr(scene.background);
  cv::Mat img(image_size_, image_size_, CV_8UC3, background);
  for (const auto& o : scene.objects) draw_object(img, o, background);
  return img;
}

void SyntheticRenderer::draw_object(cv::Mat& img, const SceneObject& o, const cv::Scalar& background) const {
  if (o.cell < 0 || o.cell >= kSceneCellCount) {
    throw std::invalid_argument("SyntheticRenderer: object cell " + std::to_string(o.cell) + " is outside 0..8");
  }
  const double cell = static_cast<double>(image_size_) / kSceneGridSide;
  // Pixel centres are at integer coordinates, so a cell [16c, 16c+16) is centred at 16c + 7.5.
  const double cx = (o.cell % kSceneGridSide) * cell + (cell - 1.0) / 2.0;
  const double cy = (o.cell / kSceneGridSide) * cell + (cell - 1.0) / 2.0;
  const bool large = o.size == SceneSize::Large;
  const double radius = cell * (large ? kLargeRadius : kSmallRadius);
  fill_shape(img, o.shape, cx, cy, radius, 0.0, scene_bgr(o.colour));
  if (o.texture == SceneTexture::Hollow) {
    // Objects never overlap (one per cell, radius < half a cell), so the hole can simply be
    // painted in the background colour.
    fill_shape(img, o.shape, cx, cy, radius, cell * (large ? kLargeOutline : kSmallOutline), background);
  }
}

}  // namespace hnclip
